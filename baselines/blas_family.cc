#include "baselines/blas_learner.h"
#include "baselines/dense_spec.h"
#include "baselines/families.h"

namespace sparsebench {

EngineFamily BlasFamily() {
  EngineFamily f;
  f.name = kBlasFamily;
  f.summary = "dense MLP of the identical architecture on OpenBLAS (sgemm), every output computed";
  f.dense_baseline = true;
  f.check = [](const std::string& spec) { DenseSpec::Parse(spec, kBlasFamily); };
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions& options) {
    return std::make_unique<BlasLearner>(spec, shape, options);
  };
  f.facts = [](const std::string& spec) {
    DenseSpec::Parse(spec, kBlasFamily);
    return SpecFacts{.clock_covers = "network init, every batch"};
  };
  return f;
}

}  // namespace sparsebench
