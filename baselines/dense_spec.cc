#include "baselines/dense_spec.h"

#include "engine/engine_error.h"
#include "engine/spec.h"

namespace sparsebench {

DenseSpec DenseSpec::Parse(const std::string& text, const std::string& family) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != family) throw ConfigError("not a " + family + " engine spec: " + text);
  DenseSpec d;
  d.family = family;
  d.hidden = static_cast<uint32_t>(spec.Int("hidden", 128, 1, 1 << 16));
  if (family == "torch") {
    d.device = spec.String("device", "cpu");
    if (d.device != "cpu" && d.device != "cuda") throw ConfigError("device must be cpu or cuda");
  }
  spec.Finish();
  return d;
}

std::string DenseSpec::Canonical() const {
  std::string s = family + ":hidden=" + std::to_string(hidden);
  if (family == "torch") s += ",device=" + device;
  return s;
}

}  // namespace sparsebench
