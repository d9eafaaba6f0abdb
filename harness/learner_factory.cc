#include "harness/learner_factory.h"

#include "engine/engine_error.h"
#include "engine/sparse_learner.h"
#include "engine/spec.h"

namespace sparsebench {

std::unique_ptr<Learner> MakeLearner(const std::string& spec, const DataShape& shape,
                                     const TrainOptions& options) {
  const std::string family = Spec::Parse(spec).family();
  if (family == "sparse") {
    return std::make_unique<SparseLearner>(SparseConfig::Parse(spec, shape), shape, options);
  }
  throw ConfigError("unknown engine family '" + family + "' (known: sparse)");
}

}  // namespace sparsebench
