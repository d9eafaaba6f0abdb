#include "engine/model/parameters.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <type_traits>

#include "datasets/random.h"

namespace sparsebench {

Parameters::Parameters(uint32_t rows_, uint32_t dim_, size_t bias_size, Storage storage)
    : rows(rows_), dim(dim_), bias(bias_size, 0.0f), bf16_moments_(storage.bf16_moments) {
  assert((!storage.bf16_weights || storage.bf16_moments) && "bf16 weights need bf16 moments");
  if (storage.bf16_weights) {
    AssignZeros(w16, size_t{rows} * dim);
  } else {
    AssignZeros(w, size_t{rows} * dim);
  }
}

size_t Parameters::bytes() const {
  return (w.size() + m.size() + v.size() + bias.size() * 3) * sizeof(float) +
         (w16.size() + m16.size() + v16.size()) * sizeof(uint16_t);
}

void Parameters::CopyRow(uint32_t r, float* out) const {
  if (!bf16_weights()) {
    std::copy_n(row(r), dim, out);
    return;
  }
  WidenBf16(row16(r), dim, out);
}

void Parameters::UseBf16Weights() {
  if (bf16_weights()) return;
  w16.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) w16[i] = ToBf16(w[i]);
  FloatVector().swap(w);
}

void Parameters::UseFp32Weights() {
  if (!bf16_weights()) return;
  w.resize(w16.size());
  WidenBf16(w16.data(), w16.size(), w.data());
  Bf16Vector().swap(w16);
}

void Parameters::ResetOptimizer() {
  const size_t weights = size_t{rows} * dim;
  if (bf16_moments()) {
    AssignZeros(m16, weights);
    AssignZeros(v16, weights);
    FloatVector().swap(m);
    FloatVector().swap(v);
  } else {
    AssignZeros(m, weights);
    AssignZeros(v, weights);
  }
  bias_m.assign(bias.size(), 0.0f);
  bias_v.assign(bias.size(), 0.0f);
}

void Parameters::UseBf16Moments() {
  bf16_moments_ = true;
  ResetOptimizer();
}

// Chunks of weights draw from their own seeded streams, so the weights are the same whatever
// the thread count. Uniform rather than normal: a 670K-wide layer is 86M draws, and Box-Muller's
// log and sincos made them half the set-up of such a layer; each 64-bit draw here gives two.
void Parameters::Initialize(uint64_t seed, double fan_in, double fan_out) {
  constexpr size_t kChunk = size_t{1} << 16;  // even: a chunk never splits a draw's pair
  const auto scale = static_cast<float>(std::sqrt(6.0 / (fan_in + fan_out)) * 0x1.0p-31);
  const size_t n = size_t{rows} * dim;
  const bool bf16 = bf16_weights();
  auto put = [&](size_t i, uint32_t bits) {
    const float x = static_cast<float>(static_cast<int32_t>(bits)) * scale;
    if (bf16) {
      w16[i] = ToBf16(x);
    } else {
      w[i] = x;
    }
  };
  const auto chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    Rng rng(MixSeed(seed, static_cast<uint64_t>(c)));
    const size_t end = std::min(n, static_cast<size_t>(c + 1) * kChunk);
    for (size_t i = static_cast<size_t>(c) * kChunk; i < end; i += 2) {
      const uint64_t bits = rng.Next();
      put(i, static_cast<uint32_t>(bits));
      if (i + 1 < end) put(i + 1, static_cast<uint32_t>(bits >> 32));
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
      epsilon(config.epsilon),
      noise_seed(static_cast<uint32_t>(Mix64(step))) {}

namespace {

// murmur3's finaliser: 16 well-mixed bits per (seed, position), cheap enough to vectorise.
inline uint32_t Noise(uint32_t seed, uint32_t i) {
  uint32_t h = seed + i * 0x9e3779b9u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h & 0xffffu;
}

inline void Store(float& slot, float x) { slot = x; }
inline void Store(uint16_t& slot, float x) { slot = ToBf16(x); }

// One row's Adam step for each storage of weights (W) and moments (M); bf16 weights round
// stochastically with `noise`, everything else to nearest.
template <typename W, typename M>
void AdamRow(const AdamStep& s, const float* __restrict grad, W* __restrict w, M* __restrict m,
             M* __restrict v, size_t n, uint32_t noise) {
  const float b1 = s.beta1, b2 = s.beta2, c1 = 1.0f - s.beta1, c2 = 1.0f - s.beta2;
  const float lr = s.step_size, correction = s.inv_sqrt_correction2, eps = s.epsilon;
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float g = grad[i];
    const float mi = b1 * Widen(m[i]) + c1 * g;
    const float vi = b2 * Widen(v[i]) + c2 * g * g;
    Store(m[i], mi);
    Store(v[i], vi);
    const float wi = Widen(w[i]) - lr * mi / (std::sqrt(vi) * correction + eps);
    if constexpr (std::is_same_v<W, float>) {
      w[i] = wi;
    } else {
      w[i] = static_cast<uint16_t>(
          (std::bit_cast<uint32_t>(wi) + Noise(noise, static_cast<uint32_t>(i))) >> 16);
    }
  }
}

}  // namespace

void AdamStep::Apply(const float* grad, float* w, float* m, float* v, size_t n) const {
  AdamRow(*this, grad, w, m, v, n, 0);
}

void AdamStep::Apply(const float* grad, float* w, uint16_t* m, uint16_t* v, size_t n) const {
  AdamRow(*this, grad, w, m, v, n, 0);
}

void AdamStep::Apply(const float* grad, uint16_t* w, uint16_t* m, uint16_t* v, size_t n,
                     uint32_t noise) const {
  AdamRow(*this, grad, w, m, v, n, noise);
}

}  // namespace sparsebench
