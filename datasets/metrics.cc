#include "datasets/metrics.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace sparsebench {

Metrics ComputeMetrics(const TopK& predictions, const Dataset& truth) {
  if (predictions.rows() != truth.rows() || predictions.k < 5) {
    throw std::invalid_argument("metrics need 5 predictions for every row");
  }
  Metrics m;
  m.rows = truth.rows();
  bool single_label = true;
  uint64_t hits1 = 0, hits3 = 0, hits5 = 0;
  for (size_t r = 0; r < truth.rows(); ++r) {
    auto labels = truth.labels(r);
    single_label &= labels.size() == 1;
    const uint32_t* top = &predictions.ids[r * predictions.k];
    for (uint32_t i = 0; i < 5; ++i) {
      if (std::find(labels.begin(), labels.end(), top[i]) == labels.end()) continue;
      if (i < 1) ++hits1;
      if (i < 3) ++hits3;
      ++hits5;
    }
  }
  const auto n = static_cast<double>(std::max<size_t>(truth.rows(), 1));
  m.p_at_1 = static_cast<double>(hits1) / n;
  m.p_at_3 = static_cast<double>(hits3) / (3 * n);
  m.p_at_5 = static_cast<double>(hits5) / (5 * n);
  if (single_label) m.accuracy = m.p_at_1;
  return m;
}

namespace {

void Insert(float s, uint32_t id, uint32_t k, uint32_t* out_ids, float* out_scores) {
  uint32_t pos = k - 1;
  while (pos > 0 && out_scores[pos - 1] < s) {
    out_scores[pos] = out_scores[pos - 1];
    out_ids[pos] = out_ids[pos - 1];
    --pos;
  }
  out_scores[pos] = s;
  out_ids[pos] = id;
}

}  // namespace

SelectionRecall MeasureSelectionRecall(const TopK& top, const std::vector<std::vector<uint32_t>>& active,
                                       const Dataset& truth) {
  if (top.rows() != truth.rows() || active.size() != truth.rows() || top.k < 5) {
    throw std::invalid_argument("selection recall needs 5 predictions and an active set for every row");
  }
  SelectionRecall recall;
  std::vector<uint32_t> sorted;
  size_t labelled = 0;
  for (size_t r = 0; r < truth.rows(); ++r) {
    sorted.assign(active[r].begin(), active[r].end());
    std::sort(sorted.begin(), sorted.end());
    auto found = [&](uint32_t id) { return std::binary_search(sorted.begin(), sorted.end(), id); };
    uint32_t hits = 0;
    for (uint32_t i = 0; i < 5; ++i) hits += found(top.ids[r * top.k + i]);
    recall.active_at_5 += hits / 5.0;
    const auto labels = truth.labels(r);
    if (!labels.empty()) {
      ++labelled;
      recall.labels += static_cast<double>(std::count_if(labels.begin(), labels.end(), found)) /
                       static_cast<double>(labels.size());
    }
    recall.mean_active += static_cast<double>(sorted.size());
  }
  const auto rows = static_cast<double>(std::max<size_t>(truth.rows(), 1));
  recall.active_at_5 /= rows;
  recall.mean_active /= rows;
  recall.labels /= static_cast<double>(std::max<size_t>(labelled, 1));
  return recall;
}

void SelectTopK(std::span<const float> scores, std::span<const uint32_t> ids, uint32_t k,
                uint32_t* out_ids, float* out_scores) {
  assert(ids.empty() || ids.size() == scores.size());
  std::fill(out_ids, out_ids + k, std::numeric_limits<uint32_t>::max());
  std::fill(out_scores, out_scores + k, -std::numeric_limits<float>::infinity());
  for (size_t i = 0; i < scores.size(); ++i) {
    if (!(scores[i] > out_scores[k - 1])) continue;
    Insert(scores[i], ids.empty() ? static_cast<uint32_t>(i) : ids[i], k, out_ids, out_scores);
  }
}

}  // namespace sparsebench
