#include "baselines/families.h"
#include "engine/api/engine_error.h"
#ifdef SPARSEBENCH_HAVE_TORCH
#include "baselines/torch_learner.h"
#endif

namespace sparsebench {

EngineFamily TorchFamily() {
  // A build without LibTorch still accepts the spec: the cell's row says why it did not run.
  EngineFamily f = DenseBaselineFamily(
      kTorchFamily,
      "dense MLP of the identical architecture in LibTorch (C++), every output computed",
      "LibTorch's intra-op threads (at::set_num_threads) inside each kernel, OpenBLAS's sgemm "
      "under its mm; between kernels (autograd, the optimizer's loop over tensors) one");
  f.make = [](const std::string& spec, const DataShape& shape,
              const TrainOptions& options) -> std::unique_ptr<Learner> {
#ifdef SPARSEBENCH_HAVE_TORCH
    return std::make_unique<TorchLearner>(spec, shape, options);
#else
    throw ConfigError(
        "this build has no LibTorch baseline (configure with SPARSEBENCH_WITH_TORCH=ON)");
#endif
  };
  return f;
}

}  // namespace sparsebench
