#pragma once

#include "engine/api/engine_family.h"

namespace sparsebench {

// Our engine's families: each entry in its own file (sparse_family.cc, text_family.cc).
inline constexpr char kSparseFamily[] = "sparse";
inline constexpr char kTextFamily[] = "text";
EngineFamily SparseFamily();
EngineFamily TextFamily();

}  // namespace sparsebench
