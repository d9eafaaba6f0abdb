#include "engine/learner.h"

#include <algorithm>

#include "engine/engine_error.h"

namespace sparsebench {

TopK Learner::PredictOne(const SparseRow& row, uint32_t k) const {
  Dataset one;
  one.feature_ids.assign(row.features.begin(), row.features.end());
  one.values.assign(row.values.begin(), row.values.end());
  one.row_offsets.push_back(one.feature_ids.size());
  one.label_offsets.push_back(0);
  for (uint32_t f : row.features) one.num_features = std::max(one.num_features, f + 1);
  return Predict(one, k);
}

TopK Learner::PredictText(std::string_view, uint32_t) const {
  throw ConfigError("engine " + spec() + " does not read raw text");
}

}  // namespace sparsebench
