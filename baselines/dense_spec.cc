#include "baselines/dense_spec.h"

#include "baselines/families.h"
#include "engine/api/engine_error.h"
#include "engine/api/spec.h"

namespace sparsebench {
namespace {

// The key that chooses the input table's update, and its sparse and dense values.
struct InputUpdateKey {
  const char* key;
  const char* sparse;
  const char* dense;
};

InputUpdateKey KeyOf(const std::string& family) {
  if (family == kTorchFamily) return {"embedding_grad", "sparse", "dense"};
  return {"adam", "lazy", "dense"};
}

}  // namespace

DenseSpec DenseSpec::Parse(const std::string& text, const std::string& family) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != family) throw ConfigError("not a " + family + " engine spec: " + text);
  DenseSpec d;
  d.family = family;
  d.hidden = static_cast<uint32_t>(spec.Int("hidden", 128, 1, 1 << 16));
  const InputUpdateKey k = KeyOf(family);
  const std::string update = spec.String(k.key, k.sparse);
  if (update != k.sparse && update != k.dense) {
    throw ConfigError(std::string(k.key) + " must be " + k.sparse + " or " + k.dense + ", not " + update);
  }
  d.sparse_input_update = update == k.sparse;
  if (family == kTorchFamily) {
    d.device = spec.String("device", "cpu");
    if (d.device != "cpu" && d.device != "cuda") throw ConfigError("device must be cpu or cuda");
    d.precision = spec.String("precision", "fp32");
    if (d.precision != "fp32" && d.precision != "bf16") {
      throw ConfigError("precision must be fp32 or bf16, not " + d.precision);
    }
    if (d.precision == "bf16" && d.device != "cpu") {
      throw ConfigError("precision=bf16 is LibTorch's CPU autocast; it needs device=cpu");
    }
  }
  spec.Finish();
  return d;
}

std::string DenseSpec::Canonical() const {
  const InputUpdateKey k = KeyOf(family);
  std::string s = family + ":hidden=" + std::to_string(hidden) + "," + k.key + "=" +
                  (sparse_input_update ? k.sparse : k.dense);
  if (family == kTorchFamily) s += ",device=" + device + ",precision=" + precision;
  return s;
}

EngineFamily DenseBaselineFamily(const char* name, std::string summary, std::string threads_run) {
  EngineFamily f;
  f.name = name;
  f.summary = std::move(summary);
  f.dense_baseline = true;
  f.check = [name](const std::string& spec) { DenseSpec::Parse(spec, name); };
  f.facts = [name, threads_run](const std::string& spec) {
    DenseSpec::Parse(spec, name);
    return SpecFacts{.clock_covers = "network init, every batch", .threads_run = threads_run};
  };
  return f;
}

}  // namespace sparsebench
