#pragma once

namespace sparsebench {

class EngineRegistry;  // engine/api/engine_family.h

// Every engine family SparseBench builds (sparse, text, blas, torch, fasttext), registered
// once; the same registry for every command.
const EngineRegistry& BuiltinEngines();

}  // namespace sparsebench
