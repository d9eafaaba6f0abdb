#pragma once
// DWTA over a block of rows transposed so each coordinate is one vector across the rows: the
// fp32 path (16 rows a vector) and the bf16 path (32) share these.
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace sparsebench {

// Winner-take-all of every bin across the block: coordinate c of all rows is the `Values`
// vector at columns + c * lanes; winners[b * lanes + row] gets the position of the bin's first
// largest value. Returns the lanes (rows) that have a bin of zeros only.
template <typename Values, typename Lanes, typename Scalar, typename Winner>
Lanes BlockWinners(const Scalar* columns, std::span<const uint32_t> positions, uint32_t bins,
                   uint32_t size, Winner* winners) {
  constexpr size_t kLanes = sizeof(Values) / sizeof(Scalar);
  using Lane = std::remove_cvref_t<decltype(Lanes{}[0])>;
  auto load = [&](uint32_t position) {
    Values x;
    std::memcpy(&x, columns + size_t{position} * kLanes, sizeof x);
    return x;
  };
  Lanes empty = {};
  for (uint32_t b = 0; b < bins; ++b) {
    Values best = load(positions[b]);
    Lanes win = {}, nonzero = best != Values{};
    for (uint32_t j = 1; j < size; ++j) {
      const Values x = load(positions[size_t{j} * bins + b]);
      const Lanes better = x > best;
      win = better ? static_cast<Lane>(j) + Lanes{} : win;
      best = better ? x : best;
      nonzero |= x != Values{};
    }
    std::memcpy(winners + size_t{b} * kLanes, &win, sizeof win);
    empty |= nonzero == 0;
  }
  return empty;
}

// Each of the first `count` rows' code per table: its k winners, `bits` apiece.
template <uint32_t kLanes, typename Winner>
void BlockCodes(const Winner* winners, uint32_t tables, uint32_t k, uint32_t bits, uint32_t count,
                uint32_t* codes, size_t codes_stride) {
  for (uint32_t t = 0; t < tables; ++t) {
    uint32_t code[kLanes] = {};
    for (uint32_t i = 0; i < k; ++i) {
      const Winner* w = winners + size_t{t * k + i} * kLanes;
#pragma omp simd
      for (uint32_t r = 0; r < kLanes; ++r)
        code[r] = (code[r] << bits) | static_cast<uint32_t>(w[r]);
    }
    for (uint32_t r = 0; r < count; ++r) codes[t * codes_stride + r] = code[r];
  }
}

}  // namespace sparsebench
