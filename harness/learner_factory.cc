#include "harness/learner_factory.h"

#include "baselines/blas_learner.h"
#include "baselines/dense_spec.h"
#include "baselines/fasttext_learner.h"
#include "engine/engine_error.h"
#include "engine/sparse_learner.h"
#include "engine/text_learner.h"
#include "engine/spec.h"
#ifdef SPARSEBENCH_HAVE_TORCH
#include "baselines/torch_learner.h"
#endif

namespace sparsebench {

std::unique_ptr<Learner> MakeLearner(const std::string& spec, const DataShape& shape,
                                     const TrainOptions& options) {
  const std::string family = Spec::Parse(spec).family();
  if (family == "sparse") {
    return std::make_unique<SparseLearner>(SparseConfig::Parse(spec, shape), shape, options);
  }
  if (family == "text") return std::make_unique<TextLearner>(spec, shape, options);
  if (family == "blas") return std::make_unique<BlasLearner>(spec, shape, options);
  if (family == "fasttext") return std::make_unique<FastTextLearner>(spec, shape, options);
  if (family == "torch") {
#ifdef SPARSEBENCH_HAVE_TORCH
    return std::make_unique<TorchLearner>(spec, shape, options);
#else
    throw ConfigError("this build has no LibTorch baseline (configure with SPARSEBENCH_WITH_TORCH=ON)");
#endif
  }
  throw ConfigError("unknown engine family '" + family + "' (known: sparse, text, blas, torch, fasttext)");
}

void CheckEngineSpec(const std::string& spec) {
  const std::string family = Spec::Parse(spec).family();
  if (family == "sparse") {
    // One output: out_sparsity never asks for LSH, so only the data-independent settings are
    // checked (the rest depends on the data's shape and is checked when the cell runs).
    SparseConfig::Parse(spec, DataShape{1, 1});
  } else if (family == "text") {
    TextConfig::Parse(spec);
  } else if (family == "blas" || family == "torch") {
    DenseSpec::Parse(spec, family);  // torch in a build without it: the cell's row says so
  } else if (family == "fasttext") {
    FastTextLearner::CheckSpec(spec);
  } else {
    throw ConfigError("unknown engine family '" + family + "' (known: sparse, text, blas, torch, fasttext)");
  }
}

}  // namespace sparsebench
