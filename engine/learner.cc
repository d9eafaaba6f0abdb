#include "engine/learner.h"

#include <algorithm>

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

}  // namespace sparsebench
