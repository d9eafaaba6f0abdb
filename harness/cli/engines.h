#pragma once

namespace sparsebench {

class EngineRegistry;  // engine/api/engine_family.h

// Every engine family SparseBench builds, registered once: sparse and text (our engine), blas,
// torch and fasttext (the dense and fastText baselines), and exec (any engine outside
// SparseBench, over the protocol of tools/engines/README.md). The command line builds it and
// passes it to every command; nothing below harness/cli/ calls this.
const EngineRegistry& BuiltinEngines();

}  // namespace sparsebench
