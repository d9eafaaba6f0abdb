#include "harness/cli/engines.h"

#include "baselines/families.h"
#include "engine/api/engine_family.h"
#include "engine/train/families.h"
#include "harness/measure/external/exec_family.h"

namespace sparsebench {
namespace {

EngineRegistry Register() {
  EngineRegistry r;
  r.Add(SparseFamily());
  r.Add(TextFamily());
  r.Add(BlasFamily());  // the first dense baseline: compare's default reference
  r.Add(TorchFamily());
  r.Add(FastTextFamily());
  r.Add(ExecFamily());
  return r;
}

}  // namespace

const EngineRegistry& BuiltinEngines() {
  static const EngineRegistry registry = Register();
  return registry;
}

}  // namespace sparsebench
