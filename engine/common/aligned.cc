#include "engine/common/aligned.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace sparsebench {

void TouchPages(void* p, size_t bytes) {
  constexpr size_t kChunk = size_t{2} << 20;
  auto* bytes_at = static_cast<unsigned char*>(p);
  const auto chunks = static_cast<int64_t>((bytes + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const size_t begin = static_cast<size_t>(c) * kChunk;
    std::memset(bytes_at + begin, 0, std::min(kChunk, bytes - begin));
  }
}

}  // namespace sparsebench
