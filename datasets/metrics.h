#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "datasets/dataset.h"

namespace sparsebench {

// Top-k predictions, best first: row r's ids are ids[r * k, r * k + k).
struct TopK {
  uint32_t k = 0;
  std::vector<uint32_t> ids;
  std::vector<float> scores;
  size_t rows() const { return k == 0 ? 0 : ids.size() / k; }
};

struct Metrics {
  double p_at_1 = 0, p_at_3 = 0, p_at_5 = 0;
  std::optional<double> accuracy;  // only when every row has exactly one label
  uint64_t rows = 0;
};

// P@k = mean over rows of |top-k ∩ labels| / k (XMC convention); needs k >= 5 predictions.
// The one metrics module: our engine and every baseline score through it.
Metrics ComputeMetrics(const TopK& predictions, const Dataset& truth);

// How well a sparse layer's selection finds what matters, over rows: `active_at_5` is the
// mean share of each row's 5 best exact outputs (top, k >= 5) found in its active set;
// `labels` the mean share of its true labels found there (rows without labels left out).
struct SelectionRecall {
  double active_at_5 = 0;
  double labels = 0;
  double mean_active = 0;
};
SelectionRecall MeasureSelectionRecall(const TopK& top, const std::vector<std::vector<uint32_t>>& active,
                                       const Dataset& truth);

// Keeps the k largest of `scores` (ties: the earlier one first), best first; ids empty means
// ids are positions. Short inputs are padded with id UINT32_MAX and score -inf.
void SelectTopK(std::span<const float> scores, std::span<const uint32_t> ids, uint32_t k,
                uint32_t* out_ids, float* out_scores);

}  // namespace sparsebench
