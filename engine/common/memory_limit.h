#pragma once

#include <cstdint>
#include <string>

namespace sparsebench {

// This machine's physical memory in bytes (sysconf), the ceiling for anything a user's
// numbers (data dimensions, spec settings, a model file) would make us allocate.
uint64_t PhysicalMemoryBytes();

// ConfigError("`what` needs N GiB, more than this machine's M GiB of memory") when `bytes`
// exceeds the physical memory; call before allocating.
void CheckFitsInMemory(uint64_t bytes, const std::string& what);

}  // namespace sparsebench
