#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/model/parameters.h"

namespace sparsebench {

// One sample's share of a weight row's gradient: coeff * (that sample's vector).
struct Contribution {
  uint32_t row;
  uint32_t slot;  // the sample's position in the batch
  float coeff;
};

// Adam on every row of an output layer from a dense batch: row r's gradient is the sum over
// slots of coeffs[slot * rows + r] * vectors[slot * dim ...], in slot order, and its bias's
// the sum of the coefficients: what Group and ApplyAdam give when every slot contributes to
// every row, without listing and sorting rows x slots contributions. Parallel over rows.
void ApplyDenseAdam(Parameters& params, const float* coeffs, size_t slots, const float* vectors,
                    const AdamStep& step, int threads);

// Groups a batch's contributions by row (a stable radix sort on the row, so sums run in
// sample order whatever the thread count, and no array as wide as the layer is touched) and
// applies Adam to the rows that received gradient only: a batch costs what its active
// neurons cost, not the layer's width. Rows are visited in ascending order, so the weights and
// moments stream through memory in one direction.
class RowGradients {
 public:
  // `parts` ranges of rows, grouped in parallel, one thread each.
  explicit RowGradients(uint32_t rows, uint32_t parts = 1);

  uint32_t parts() const { return parts_; }
  // The range a row belongs to: contributions are handed to Group already split by it.
  uint32_t PartOf(uint32_t row) const {
    return static_cast<uint32_t>((uint64_t{row} * scale_) >> 32);
  }

  // lists[i] holds contributions of part i % parts() only, in sample order within each list;
  // each part is grouped by its own thread, reading its lists in order, so the result does not
  // depend on how many parts there are.
  void Group(std::span<const std::vector<Contribution>* const> lists);
  size_t unique_rows() const { return unique_; }

  // Row r's gradient is sum coeff * vectors[slot * dim ...]; with row_bias the bias of row
  // r gets sum coeff too (output layer). Parallel over rows.
  void ApplyAdam(Parameters& params, const float* vectors, bool row_bias, const AdamStep& step,
                 int threads) const;

  // The grouped entries (every contribution), row by row: entry e's slot and coefficient.
  size_t entries() const { return entries_.size(); }
  uint32_t slot_of(size_t e) const { return entries_[e].slot; }
  float coeff_of(size_t e) const { return entries_[e].coeff; }

  // A sparse output layer's logits read row by row, each row once however many samples it
  // serves: values[positions[e]] = row . vectors[slot of e] + the row's bias, for every entry e.
  void Score(const Parameters& params, const float* vectors, const uint32_t* positions,
             float* values, int threads) const;
  // The backward pass and Adam step of such a layer: entry e's coefficient is coeffs[e] (the
  // grouped one is ignored), and before its step each row adds that coefficient * (its
  // weights) to vector_grads[(chunk * slots + slot of e) * dim ...], where chunk is the row's
  // of kChunks fixed ranges of rows. Summed over chunks in order, these are dLoss/d(vector)
  // whatever the thread count. vector_grads (kChunks * slots * dim floats) is overwritten.
  static constexpr uint32_t kChunks = 16;
  void ApplyAdamBackprop(Parameters& params, const float* vectors, const float* coeffs,
                         size_t slots, float* vector_grads, const AdamStep& step,
                         int threads) const;

 private:
  struct Entry {
    uint32_t slot;
    float coeff;
  };
  uint32_t FirstRowOf(uint32_t part) const;
  // Position in rows_ of the first listed row of chunk `chunk` (of kChunks equal row ranges).
  size_t FirstListedOfChunk(uint32_t chunk) const;
  // Sorts a part's contributions by row into sorted_[part]; returns how many rows they touch.
  size_t SortPart(std::span<const std::vector<Contribution>* const> lists, uint32_t part);
  // Lays out a part's rows from position `row_at` of rows_ and entry `entry_at` on.
  void PlacePart(uint32_t part, size_t row_at, size_t entry_at);

  uint32_t rows_count_;
  uint32_t parts_;
  uint64_t scale_;  // PartOf(row) = row * scale_ / 2^32

  std::vector<uint32_t> rows_;     // rows with gradient, ascending (the first unique_)
  std::vector<uint32_t> offsets_;  // per row of rows_, into entries_
  std::vector<Entry> entries_;
  size_t unique_ = 0;
  struct PartBuffers {  // one range's sort, reused from batch to batch
    std::vector<Contribution> sorted, spare;
    std::vector<uint32_t> counts;
    size_t rows = 0;
  };
  std::vector<PartBuffers> part_;
};

}  // namespace sparsebench
