#pragma once

#include "engine/engine_family.h"

namespace sparsebench {

// The `exec:` family: engines outside SparseBench, run over the line protocol.
EngineFamily ExecFamily();

}  // namespace sparsebench
