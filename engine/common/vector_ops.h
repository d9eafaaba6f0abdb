#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

// Small dense kernels; the compiler vectorises them for the ISA chosen by SPARSEBENCH_ISA.
namespace sparsebench {

// bf16 is stored as the upper half of an fp32 (uint16_t).
inline float FromBf16(uint16_t b) { return std::bit_cast<float>(uint32_t{b} << 16); }
inline void WidenBf16(const uint16_t* __restrict in, size_t n, float* __restrict out) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) out[i] = FromBf16(in[i]);
}
inline uint16_t ToBf16(float f) {  // round to nearest even
  uint32_t u = std::bit_cast<uint32_t>(f);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float Widen(float x) { return x; }
inline float Widen(uint16_t x) { return FromBf16(x); }

// a . b in 16 running sums, one per lane, added pairwise at the end (then the n % 16 tail):
// the same order whatever vector width the ISA gives, and a short chain of additions at the
// end, where `omp simd reduction` leaves GCC adding the lanes one by one through memory.
template <typename T>
inline float Dot(const T* __restrict a, const float* __restrict b, size_t n) {
  constexpr size_t kLanes = 16;
  float lanes[kLanes] = {};
  const size_t full = n - n % kLanes;
  for (size_t i = 0; i < full; i += kLanes) {
#pragma omp simd
    for (size_t j = 0; j < kLanes; ++j) lanes[j] += Widen(a[i + j]) * b[i + j];
  }
  for (size_t width = kLanes / 2; width > 0; width /= 2) {
    for (size_t j = 0; j < width; ++j) lanes[j] += lanes[j + width];
  }
  float sum = lanes[0];
  for (size_t i = full; i < n; ++i) sum += Widen(a[i]) * b[i];
  return sum;
}

inline void Axpy(float alpha, const uint16_t* __restrict x, float* __restrict y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) y[i] += alpha * FromBf16(x[i]);
}

// y += alpha * x
inline void Axpy(float alpha, const float* __restrict x, float* __restrict y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

// y = alpha * x
inline void Scale(float alpha, const float* __restrict x, float* __restrict y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}

// e^x for x in [-87, 88] without a library call, so loops over it vectorise: 2^n times a
// degree-7 polynomial for 2^f, f in [-1/2, 1/2]; relative error below 3e-7. Below -87 it
// returns about e^-87 (softmax terms that small do not matter next to the maximum's 1).
inline float Exp(float x) {
  const float t = std::max(x, -87.0f) * 1.44269504088896341f;  // x / ln 2
  const float n = std::nearbyint(t);
  const float f = (t - n) * 0.693147180559945309f;  // in [-ln2/2, ln2/2]
  float p = 1.0f / 5040;
  p = p * f + 1.0f / 720;
  p = p * f + 1.0f / 120;
  p = p * f + 1.0f / 24;
  p = p * f + 1.0f / 6;
  p = p * f + 0.5f;
  p = p * f + 1.0f;
  p = p * f + 1.0f;
  const auto scale = std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
  return p * scale;
}

// Asks for the `bytes` at p to be brought into cache ahead of use (a hint; portable). Always
// inlined: GCC takes a function that only prefetches for one without effects and drops its
// calls.
[[gnu::always_inline]] inline void PrefetchBytes(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(c + offset);
}
[[gnu::always_inline]] inline void PrefetchRow(const float* p, size_t bytes) {
  PrefetchBytes(p, bytes);
}
// The same into the outer caches only (L2): for rows fetched many at a time, whose misses
// would otherwise hold the few L1 miss slots and stall the loads in between.
[[gnu::always_inline]] inline void PrefetchBytesL2(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(c + offset, 0, 2);
}

}  // namespace sparsebench
