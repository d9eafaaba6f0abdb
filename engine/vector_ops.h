#pragma once

#include <cstddef>

// Small dense kernels; the compiler vectorises them for the ISA chosen by SPARSEBENCH_ISA.
namespace sparsebench {

inline float Dot(const float* __restrict a, const float* __restrict b, size_t n) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// y += alpha * x
inline void Axpy(float alpha, const float* __restrict x, float* __restrict y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

// Asks for the `bytes` at p to be brought into cache ahead of use (a hint; portable).
inline void PrefetchRow(const float* p, size_t bytes) {
  const char* c = reinterpret_cast<const char*>(p);
  for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(c + offset);
}

}  // namespace sparsebench
