#include "baselines/dense_spec.h"
#include "baselines/families.h"
#include "engine/engine_error.h"
#ifdef SPARSEBENCH_HAVE_TORCH
#include "baselines/torch_learner.h"
#endif

namespace sparsebench {

EngineFamily TorchFamily() {
  EngineFamily f;
  f.name = kTorchFamily;
  f.summary = "dense MLP of the identical architecture in LibTorch (C++), every output computed";
  f.dense_baseline = true;
  // A build without LibTorch still accepts the spec: the cell's row says why it did not run.
  f.check = [](const std::string& spec) { DenseSpec::Parse(spec, kTorchFamily); };
  f.make = [](const std::string& spec, const DataShape& shape,
              const TrainOptions& options) -> std::unique_ptr<Learner> {
#ifdef SPARSEBENCH_HAVE_TORCH
    return std::make_unique<TorchLearner>(spec, shape, options);
#else
    throw ConfigError(
        "this build has no LibTorch baseline (configure with SPARSEBENCH_WITH_TORCH=ON)");
#endif
  };
  f.facts = [](const std::string& spec) {
    DenseSpec::Parse(spec, kTorchFamily);
    return SpecFacts{.clock_covers = "network init, every batch"};
  };
  return f;
}

}  // namespace sparsebench
