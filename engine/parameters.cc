#include "engine/parameters.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "datasets/random.h"

namespace sparsebench {

Parameters::Parameters(uint32_t rows_, uint32_t dim_, size_t bias_size)
    : rows(rows_),
      dim(dim_),
      w(size_t{rows_} * dim_, 0.0f),
      m(size_t{rows_} * dim_, 0.0f),
      v(size_t{rows_} * dim_, 0.0f),
      bias(bias_size, 0.0f),
      bias_m(bias_size, 0.0f),
      bias_v(bias_size, 0.0f) {}

size_t Parameters::bytes() const {
  return (w.size() + m.size() + v.size() + bias.size() * 3) * sizeof(float) + (m16.size() + v16.size()) * sizeof(uint16_t);
}

void Parameters::ResetOptimizer() {
  if (bf16_moments()) {
    m16.assign(w.size(), 0);
    v16.assign(w.size(), 0);
  } else {
    m.assign(w.size(), 0.0f);
    v.assign(w.size(), 0.0f);
  }
  bias_m.assign(bias.size(), 0.0f);
  bias_v.assign(bias.size(), 0.0f);
}

void Parameters::UseBf16Moments() {
  FloatVector().swap(m);
  FloatVector().swap(v);
  m16.assign(w.size(), 0);
  v16.assign(w.size(), 0);
}

// Chunks of weights draw from their own seeded streams, so the weights are the same whatever
// the thread count (a 670K-wide layer is 86M draws: worth both cores).
void Parameters::Initialize(uint64_t seed, double fan_in, double fan_out) {
  constexpr size_t kChunk = size_t{1} << 16;  // even, so a chunk never splits a Box-Muller pair
  const double stddev = std::sqrt(2.0 / (fan_in + fan_out));
  const auto chunks = static_cast<int64_t>((w.size() + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    Rng rng(MixSeed(seed, static_cast<uint64_t>(c)));
    const size_t end = std::min(w.size(), static_cast<size_t>(c + 1) * kChunk);
    for (size_t i = static_cast<size_t>(c) * kChunk; i < end; i += 2) {
      const double u1 = 1.0 - rng.Uniform(), u2 = rng.Uniform();
      const double radius = stddev * std::sqrt(-2.0 * std::log(u1));
      w[i] = static_cast<float>(radius * std::cos(6.283185307179586 * u2));
      if (i + 1 < end) w[i + 1] = static_cast<float>(radius * std::sin(6.283185307179586 * u2));
    }
  }
  std::fill(bias.begin(), bias.end(), 0.0f);
  ResetOptimizer();
}

AdamStep::AdamStep(const AdamConfig& config, uint64_t step)
    : step_size(static_cast<float>(config.lr / (1.0 - std::pow(config.beta1, step)))),
      inv_sqrt_correction2(static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(config.beta2, step)))),
      beta1(config.beta1),
      beta2(config.beta2),
      epsilon(config.epsilon) {}

void AdamStep::Apply(const float* __restrict grad, float* __restrict w, float* __restrict m,
                     float* __restrict v, size_t n) const {
  const float b1 = beta1, b2 = beta2, c1 = 1.0f - beta1, c2 = 1.0f - beta2;
  const float lr = step_size, correction = inv_sqrt_correction2, eps = epsilon;
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float g = grad[i];
    const float mi = b1 * m[i] + c1 * g;
    const float vi = b2 * v[i] + c2 * g * g;
    m[i] = mi;
    v[i] = vi;
    w[i] -= lr * mi / (std::sqrt(vi) * correction + eps);
  }
}

namespace {

inline float FromBf16(uint16_t b) { return std::bit_cast<float>(uint32_t{b} << 16); }
inline uint16_t ToBf16(float f) {  // round to nearest even
  uint32_t u = std::bit_cast<uint32_t>(f);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace

void AdamStep::Apply(const float* __restrict grad, float* __restrict w, uint16_t* __restrict m,
                     uint16_t* __restrict v, size_t n) const {
  const float b1 = beta1, b2 = beta2, c1 = 1.0f - beta1, c2 = 1.0f - beta2;
  const float lr = step_size, correction = inv_sqrt_correction2, eps = epsilon;
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float g = grad[i];
    const float mi = b1 * FromBf16(m[i]) + c1 * g;
    const float vi = b2 * FromBf16(v[i]) + c2 * g * g;
    m[i] = ToBf16(mi);
    v[i] = ToBf16(vi);
    w[i] -= lr * mi / (std::sqrt(vi) * correction + eps);
  }
}

}  // namespace sparsebench
