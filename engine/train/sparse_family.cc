#include "engine/train/families.h"
#include "engine/train/sparse_learner.h"

namespace sparsebench {
namespace {

// Every spec this family prints names out_sparsity, so the shape's defaults never decide.
constexpr DataShape kAnyShape{1, 1};

SpecFacts Facts(const std::string& spec) {
  const SparseConfig c = SparseConfig::Parse(spec, kAnyShape);
  SpecFacts f;
  f.all_outputs_active = c.out_sparsity >= 1.0;
  if (f.all_outputs_active) {
    f.role = AblationRole::kAllOutputsActive;
  } else {
    f.role = c.selector.kind == "random" ? AblationRole::kUniformSampling : AblationRole::kSubject;
  }
  f.threads_run =
      "each batch's samples split over them, then the output rows' gradient sums and Adam updates; "
      "hash-table rebuilds split by table. Between the phases each batch waits for its slowest "
      "thread (OpenMP barriers)";
  f.clock_covers = f.all_outputs_active
                       ? "network init, every batch"
                       : "network init, hash-table builds and rebuilds, every batch";
  return f;
}

}  // namespace

EngineFamily SparseFamily() {
  EngineFamily f;
  f.name = kSparseFamily;
  f.summary = "our LSH-sparse MLP (SLIDE/BOLT style): hash tables choose the active output neurons";
  f.ours = true;
  // One output: out_sparsity never asks for LSH, so only the data-independent settings are
  // checked (the rest depends on the data's shape and is checked when the cell runs).
  f.check = [](const std::string& spec) { SparseConfig::Parse(spec, kAnyShape); };
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions& options) {
    return std::make_unique<SparseLearner>(SparseConfig::Parse(spec, shape), shape, options);
  };
  f.facts = Facts;
  return f;
}

}  // namespace sparsebench
