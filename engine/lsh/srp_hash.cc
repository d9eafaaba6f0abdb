#include "engine/lsh/srp_hash.h"

#include <bit>
#include <cmath>
#include <numeric>

#include "datasets/random.h"
#include "engine/api/engine_error.h"
#include "engine/common/vector_ops.h"

namespace sparsebench {
namespace {

float Gaussian(Rng& rng) {
  const double u1 = 1.0 - rng.Uniform(), u2 = rng.Uniform();
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

void CheckBits(const HashParams& p, const char* name) {
  if (p.k == 0 || p.k > 32) throw ConfigError(std::string(name) + ": k must be in [1, 32]");
}

uint32_t Code(const uint8_t* bits, uint32_t k) {
  uint32_t code = 0;
  for (uint32_t i = 0; i < k; ++i) code = (code << 1) | bits[i];
  return code;
}

void WalshHadamard(float* v, uint32_t n) {
  for (uint32_t half = 1; half < n; half *= 2) {
    for (uint32_t i = 0; i < n; i += 2 * half) {
      for (uint32_t j = i; j < i + half; ++j) {
        const float a = v[j], b = v[j + half];
        v[j] = a + b;
        v[j + half] = a - b;
      }
    }
  }
}

}  // namespace

SrpHash::SrpHash(const HashParams& params) : params_(params) {
  CheckBits(params, "srp");
  Rng rng(MixSeed(params.seed, 0x5e9));
  projections_.resize(size_t{params.k} * params.tables * params.dim);
  for (float& g : projections_) g = Gaussian(rng);
}

void SrpHash::Hash(std::span<const float> x, std::span<uint32_t> codes, HashScratch&) const {
  uint8_t bits[32];
  for (uint32_t t = 0; t < params_.tables; ++t) {
    for (uint32_t k = 0; k < params_.k; ++k) {
      const float* g = &projections_[(size_t{t} * params_.k + k) * params_.dim];
      bits[k] = Dot(g, x.data(), params_.dim) > 0.0f;
    }
    codes[t] = Code(bits, params_.k);
  }
}

std::string SrpHash::Describe() const {
  return "srp(k=" + std::to_string(params_.k) + ",l=" + std::to_string(params_.tables) + ")";
}

FastSrpHash::FastSrpHash(const HashParams& params)
    : params_(params), padded_(std::bit_ceil(std::max(params.dim, 2u))) {
  CheckBits(params, "fastsrp");
  const uint32_t bits = params.k * params.tables;
  transforms_ = (bits + padded_ - 1) / padded_;
  Rng rng(MixSeed(params.seed, 0xf5));
  signs_.resize(size_t{transforms_} * padded_);
  for (float& s : signs_) s = rng.Below(2) ? 1.0f : -1.0f;
  std::vector<uint32_t> order(size_t{transforms_} * padded_);
  std::iota(order.begin(), order.end(), 0u);
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[rng.Below(static_cast<uint32_t>(i))]);
  // Each transform output is used at most once, so a table's K bits come from shuffled outputs.
  bit_source_.assign(order.begin(), order.begin() + bits);
}

void FastSrpHash::Hash(std::span<const float> x, std::span<uint32_t> codes,
                       HashScratch& scratch) const {
  std::vector<float>& rotated = scratch.floats;
  rotated.assign(size_t{transforms_} * padded_, 0.0f);
  for (uint32_t t = 0; t < transforms_; ++t) {
    float* v = &rotated[size_t{t} * padded_];
    const float* s = &signs_[size_t{t} * padded_];
    for (uint32_t i = 0; i < params_.dim; ++i) v[i] = s[i] * x[i];
    WalshHadamard(v, padded_);
  }
  uint8_t bits[32];
  for (uint32_t t = 0; t < params_.tables; ++t) {
    for (uint32_t k = 0; k < params_.k; ++k)
      bits[k] = rotated[bit_source_[t * params_.k + k]] > 0.0f;
    codes[t] = Code(bits, params_.k);
  }
}

std::string FastSrpHash::Describe() const {
  return "fastsrp(k=" + std::to_string(params_.k) + ",l=" + std::to_string(params_.tables) + ")";
}

}  // namespace sparsebench
