#include "engine/common/memory_limit.h"

#include <unistd.h>

#include <cstdio>

#include "engine/api/engine_error.h"

namespace sparsebench {

uint64_t PhysicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return UINT64_MAX;  // unknown: no ceiling
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

void CheckFitsInMemory(uint64_t bytes, const std::string& what) {
  const uint64_t memory = PhysicalMemoryBytes();
  if (bytes <= memory) return;
  char text[160];
  std::snprintf(text, sizeof text, " needs %.1f GiB, more than this machine's %.1f GiB of memory",
                static_cast<double>(bytes) / (1u << 30), static_cast<double>(memory) / (1u << 30));
  throw ConfigError(what + text);
}

}  // namespace sparsebench
