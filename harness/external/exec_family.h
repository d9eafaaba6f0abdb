#pragma once

#include <string_view>

#include "engine/api/engine_family.h"

namespace sparsebench {

// The `exec:` family: engines outside SparseBench, run over the line protocol.
EngineFamily ExecFamily();

// `spec` runs the null engine, tools/engines/null.py: the floor, and the socket's round trip.
bool IsNullEngine(std::string_view spec);

}  // namespace sparsebench
