#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/parameters.h"

namespace sparsebench {

// One sample's share of a weight row's gradient: coeff * (that sample's vector).
struct Contribution {
  uint32_t row;
  uint32_t slot;  // the sample's position in the batch
  float coeff;
};

// Groups a batch's contributions by row (a stable counting sort, so sums run in sample
// order whatever the thread count) and applies Adam to the rows that received gradient
// only: a batch costs what its active neurons cost, not the layer's width. Rows are visited
// in ascending order, so the weights and moments stream through memory in one direction.
class RowGradients {
 public:
  explicit RowGradients(uint32_t rows) : count_(rows, 0), start_(rows, 0) {}

  void Group(std::span<const std::vector<Contribution>* const> per_thread);
  size_t unique_rows() const { return rows_.size(); }

  // Row r's gradient is sum coeff * vectors[slot * dim ...]; with row_bias the bias of row
  // r gets sum coeff too (output layer). Parallel over rows.
  void ApplyAdam(Parameters& params, const float* vectors, bool row_bias, const AdamStep& step,
                 int threads) const;

 private:
  struct Entry {
    uint32_t slot;
    float coeff;
  };
  void SortRows();

  std::vector<uint32_t> count_;    // per row: contributions this batch (zero between batches)
  std::vector<uint32_t> start_;    // per row: where its entries go while grouping
  std::vector<uint32_t> rows_;     // rows with gradient, ascending
  std::vector<uint32_t> offsets_;  // per row of rows_, into entries_
  std::vector<Entry> entries_;
};

}  // namespace sparsebench
