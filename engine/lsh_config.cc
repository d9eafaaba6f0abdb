#include "engine/lsh_config.h"

#include <algorithm>
#include <bit>

namespace sparsebench {

void ResolveLsh(SelectorParams& p, uint32_t outputs, uint32_t active) {
  HashParams& h = p.hash;
  if (h.bin_size == 0) h.bin_size = 8;
  if (h.k == 0) h.k = h.family == "dwta" ? 3 : 9;
  if (h.tables == 0) h.tables = 16;
  if (p.range_bits == 0) p.range_bits = std::clamp<uint32_t>(std::bit_width(std::max(outputs / 4, 1u)), 4, 24);
  if (p.capacity == 0) p.capacity = std::max(64u, 2 * active / h.tables);
}

}  // namespace sparsebench
