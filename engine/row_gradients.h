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
// only: a batch costs what its active neurons cost, not the layer's width.
class RowGradients {
 public:
  explicit RowGradients(uint32_t rows) : stamp_(rows, 0), slot_of_row_(rows, 0) {}

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
  std::vector<uint32_t> stamp_;
  std::vector<uint32_t> slot_of_row_;
  uint32_t batch_ = 0;
  std::vector<uint32_t> rows_;     // unique rows in first-seen order
  std::vector<uint32_t> offsets_;  // per unique row, into entries_
  std::vector<Entry> entries_;
};

}  // namespace sparsebench
