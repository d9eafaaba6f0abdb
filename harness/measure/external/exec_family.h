#pragma once

#include "engine/api/engine_family.h"

namespace sparsebench {

// The `exec:` family: engines outside SparseBench, run over the line protocol.
EngineFamily ExecFamily();

}  // namespace sparsebench
