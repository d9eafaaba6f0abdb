#pragma once

#include <nlohmann/json.hpp>

namespace sparsebench {

// The machine and build a run happened on, captured once per run: CPU model, cores, ISA
// flags, memory, OS, compiler and flags, library versions and BLAS backend, git commit,
// date, thread settings.
nlohmann::json CaptureContext();

}  // namespace sparsebench
