// DWTA over bf16 weight rows, 32 rows a block: each value becomes an int16 key that orders
// like the float it stands for, so one vector compare covers twice the rows of the fp32 path
// and the rows are never widened. The codes are those of the rows' float values.
#include <algorithm>
#include <cstring>

#include "engine/common/transpose.h"
#include "engine/common/vector_ops.h"
#include "engine/lsh/dwta_block.h"
#include "engine/lsh/dwta_hash.h"

namespace sparsebench {
namespace {

using Shorts = int16_t __attribute__((vector_size(64)));   // 32 lanes: a block's rows
using Halves = uint16_t __attribute__((vector_size(64)));  // the same lanes as raw bf16
constexpr uint32_t kRows = 32;

// -0 is 0, a positive value is itself, a negative one has its magnitude bits flipped: signed
// order is then float order, ties included.
inline int16_t Key(uint16_t x) {
  if (x == 0x8000) return 0;
  return static_cast<int16_t>(x & 0x8000 ? x ^ 0x7fff : x);
}

inline Shorts Keys(Halves x) {
  x = x == 0x8000 ? Halves{} : x;
  return reinterpret_cast<Shorts>(x ^ ((x >> 15) * 0x7fff));
}

// Columns c0 .. c0 + 31 of `count` (at most 32) rows as keys: keys[(c - c0) * 32 + row],
// missing rows 0. Each half of the rows is transposed as 16 x 16 pairs of adjacent columns
// (32-bit lanes); the pairs' halves are then split into the two columns.
void TransposeKeys(const uint16_t* rows, size_t stride, uint32_t count, int16_t* keys) {
  alignas(64) float pairs[2][16 * 16];
  for (uint32_t half = 0; half < 2; ++half) {
    const uint32_t first = half * 16, n = count > first ? std::min(16u, count - first) : 0;
    // stride is even and the rows 4-byte aligned (checked by the caller): pairs are whole floats.
    TransposeTile(reinterpret_cast<const float*>(rows + first * stride), stride / 2, n,
                  pairs[half]);
  }
  for (uint32_t i = 0; i < 16; ++i) {
    Halves a, b;
    std::memcpy(&a, pairs[0] + i * 16, sizeof a);
    std::memcpy(&b, pairs[1] + i * 16, sizeof b);
    const Halves even =
        __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32,
                                34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62);
    const Halves odd =
        __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33,
                                35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63);
    const Shorts even_keys = Keys(even), odd_keys = Keys(odd);
    std::memcpy(keys + (2 * i) * kRows, &even_keys, sizeof even_keys);
    std::memcpy(keys + (2 * i + 1) * kRows, &odd_keys, sizeof odd_keys);
  }
}

}  // namespace

void DwtaHash::HashRows(const uint16_t* rows, uint32_t count, size_t stride, uint32_t* codes,
                        size_t codes_stride, HashScratch& scratch) const {
  static_assert(kBf16Block == kRows);
  for (uint32_t first = 0; first < count; first += kRows) {
    HashBf16Block(rows + first * stride, std::min(kRows, count - first), stride, codes + first,
                  codes_stride, scratch);
  }
}

void DwtaHash::HashBf16Block(const uint16_t* rows, uint32_t count, size_t stride, uint32_t* codes,
                             size_t codes_stride, HashScratch& scratch) const {
  const uint32_t bins = params_.k * params_.tables, dim = params_.dim, size = params_.bin_size;
  scratch.keys.resize(size_t{dim} * kRows);
  int16_t* keys = scratch.keys.data();
  const bool pairs = stride % 2 == 0 && reinterpret_cast<uintptr_t>(rows) % 4 == 0;
  uint32_t c = 0;
  for (; pairs && c + kRows <= dim; c += kRows)
    TransposeKeys(rows + c, stride, count, keys + size_t{c} * kRows);
  for (; c < dim; ++c) {
    for (uint32_t r = 0; r < kRows; ++r)
      keys[c * kRows + r] = r < count ? Key(rows[r * stride + c]) : 0;
  }
  scratch.winners.resize(size_t{bins} * kRows);
  int16_t* winners = scratch.winners.data();
  const Shorts empty = BlockWinners<Shorts, Shorts>(keys, positions_, bins, size, winners);
  BlockCodes<kRows>(winners, params_.tables, params_.k, bits_per_hash_, count, codes, codes_stride);
  std::vector<float>& row = scratch.row;
  for (uint32_t r = 0; r < count; ++r) {
    if (empty[r] == 0) continue;
    row.resize(dim);
    WidenBf16(rows + r * stride, dim, row.data());
    HashOneRow(row, codes + r, codes_stride);
  }
}

}  // namespace sparsebench
