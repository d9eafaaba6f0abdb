#pragma once

#include <cmath>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/random.h"
#include "engine/api/learner.h"

namespace sparsebench::testing {

// A small random multi-label dataset: sparse L2-normalised rows, 1-3 labels each.
inline Dataset RandomDataset(uint32_t rows, uint32_t features, uint32_t labels, uint64_t seed) {
  Dataset d;
  d.num_features = features;
  d.num_labels = labels;
  Rng rng(seed);
  for (uint32_t r = 0; r < rows; ++r) {
    std::vector<uint32_t> ids;
    for (uint32_t f = 0; f < features; ++f) {
      if (rng.Bernoulli(0.3)) ids.push_back(f);
    }
    if (ids.empty()) ids.push_back(rng.Below(features));
    double norm = 0;
    std::vector<float> values;
    for (size_t i = 0; i < ids.size(); ++i) {
      values.push_back(0.2f + static_cast<float>(rng.Uniform()));
      norm += values.back() * values.back();
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      d.feature_ids.push_back(ids[i]);
      d.values.push_back(values[i] / static_cast<float>(std::sqrt(norm)));
    }
    d.row_offsets.push_back(d.feature_ids.size());
    const uint32_t k = 1 + rng.Below(3);
    for (uint32_t j = 0; j < k; ++j) {
      const uint32_t l = (r + j * 7) % labels;
      bool seen = false;
      for (uint64_t i = d.label_offsets.back(); i < d.label_ids.size(); ++i)
        seen |= d.label_ids[i] == l;
      if (!seen) d.label_ids.push_back(l);
    }
    d.label_offsets.push_back(d.label_ids.size());
  }
  return d;
}

// Runs one Train call and returns the pause that ended its last epoch (loss, details).
inline Progress TrainReportingLastEpoch(Learner& learner, const Dataset& data) {
  Progress last;
  learner.Train(data, PausePlan{0, [&](const Progress& p) {
                                  if (p.epoch_end) last = p;
                                }});
  return last;
}

}  // namespace sparsebench::testing
