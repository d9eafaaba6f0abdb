#pragma once
// 16 x 16 transposes of 32-bit lanes with the compiler's own vectors and shuffles: portable,
// the compiler maps them onto the target's SIMD registers (or splits them where narrower).
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sparsebench {

using Floats = float __attribute__((vector_size(64)));  // 16 lanes
static_assert(sizeof(Floats) / sizeof(float) == 16);

// One stage of a 16 x 16 transpose: vectors i and i + K swap their K-lane halves.
template <int K>
inline void Butterfly(Floats* x) {
  for (int i = 0; i < 16; ++i) {
    if (i & K) continue;
    const Floats a = x[i], b = x[i + K];
    if constexpr (K == 8) {
      x[i] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
      x[i + K] = __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29,
                                         30, 31);
    } else if constexpr (K == 4) {
      x[i] =
          __builtin_shufflevector(a, b, 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
      x[i + K] =
          __builtin_shufflevector(a, b, 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    } else if constexpr (K == 2) {
      x[i] =
          __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
      x[i + K] =
          __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    } else {
      x[i] =
          __builtin_shufflevector(a, b, 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
      x[i + K] =
          __builtin_shufflevector(a, b, 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    }
  }
}

// Columns 0 .. 15 of `count` (at most 16) rows, `stride` floats apart, into out[c * 16 + row];
// missing rows are zeros. Only the bits move: any 32-bit lanes can pass as floats.
inline void TransposeTile(const float* rows, size_t stride, uint32_t count, float* out) {
  Floats x[16];
  for (uint32_t r = 0; r < 16; ++r) {
    if (r < count) {
      std::memcpy(&x[r], rows + r * stride, sizeof(Floats));
    } else {
      x[r] = Floats{};
    }
  }
  Butterfly<8>(x);
  Butterfly<4>(x);
  Butterfly<2>(x);
  Butterfly<1>(x);
  for (uint32_t i = 0; i < 16; ++i) std::memcpy(out + size_t{i} * 16, &x[i], sizeof(Floats));
}

}  // namespace sparsebench
