#include "baselines/blas_learner.h"
#include "baselines/families.h"

namespace sparsebench {

EngineFamily BlasFamily() {
  EngineFamily f = DenseBaselineFamily(
      kBlasFamily,
      "dense MLP of the identical architecture on OpenBLAS (sgemm), every output computed",
      "OpenBLAS's sgemm on all of them; the input layer's gather and scatter and the Adam "
      "updates split over them by rows (OpenMP)");
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions& options) {
    return std::make_unique<BlasLearner>(spec, shape, options);
  };
  return f;
}

}  // namespace sparsebench
