#include "baselines/blas_learner.h"
#include "baselines/families.h"

namespace sparsebench {

EngineFamily BlasFamily() {
  EngineFamily f = DenseBaselineFamily(
      kBlasFamily,
      "dense MLP of the identical architecture on OpenBLAS (sgemm), every output computed");
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions& options) {
    return std::make_unique<BlasLearner>(spec, shape, options);
  };
  return f;
}

}  // namespace sparsebench
