#include "engine/dwta_hash.h"

#include <bit>
#include <numeric>

#include "datasets/random.h"
#include "engine/engine_error.h"

namespace sparsebench {

DwtaHash::DwtaHash(const HashParams& params)
    : params_(params), bits_per_hash_(static_cast<uint32_t>(std::countr_zero(params.bin_size))) {
  if (!std::has_single_bit(params.bin_size) || params.bin_size < 2 || params.bin_size > params.dim) {
    throw ConfigError("dwta: bin size must be a power of two in [2, dim]");
  }
  if (params.k * bits_per_hash_ > 32) throw ConfigError("dwta: k * log2(bin size) must be <= 32");
  const uint32_t bins = params.k * params.tables;
  Rng rng(MixSeed(params.seed, 0xd37a));
  std::vector<uint32_t> permutation(params.dim);
  positions_.reserve(size_t{bins} * params.bin_size);
  // Consecutive bins take disjoint slices of fresh random permutations of the coordinates.
  while (positions_.size() < size_t{bins} * params.bin_size) {
    std::iota(permutation.begin(), permutation.end(), 0u);
    for (uint32_t i = params.dim; i > 1; --i) std::swap(permutation[i - 1], permutation[rng.Below(i)]);
    const size_t take = std::min<size_t>(params.dim / params.bin_size * params.bin_size,
                                         size_t{bins} * params.bin_size - positions_.size());
    positions_.insert(positions_.end(), permutation.begin(), permutation.begin() + static_cast<std::ptrdiff_t>(take));
  }
  std::vector<uint32_t> slot_major(positions_.size());
  for (uint32_t b = 0; b < bins; ++b) {
    for (uint32_t j = 0; j < params.bin_size; ++j) {
      slot_major[size_t{j} * bins + b] = positions_[size_t{b} * params.bin_size + j];
    }
  }
  positions_ = std::move(slot_major);
  probes_.resize(bins);
  for (uint32_t b = 0; b < bins; ++b) probes_[b] = rng.Below(bins);
}

void DwtaHash::Hash(std::span<const float> x, std::span<uint32_t> codes,
                    HashScratch& scratch) const {
  const uint32_t bins = params_.k * params_.tables;
  const uint32_t size = params_.bin_size;
  constexpr uint32_t kEmpty = ~0u;
  scratch.floats.resize(bins);
  scratch.ints.resize(2 * size_t{bins});
  float* best = scratch.floats.data();
  uint32_t* winner = scratch.ints.data();
  uint32_t* nonzero = winner + bins;
  const float* v = x.data();
  // Slot-major positions let the compiler vectorise across bins (with gathers).
  const uint32_t* first = positions_.data();
#pragma omp simd
  for (uint32_t b = 0; b < bins; ++b) {
    best[b] = v[first[b]];
    winner[b] = 0;
    nonzero[b] = best[b] != 0.0f;
  }
  for (uint32_t j = 1; j < size; ++j) {
    const uint32_t* pos = positions_.data() + size_t{j} * bins;
#pragma omp simd
    for (uint32_t b = 0; b < bins; ++b) {
      const float value = v[pos[b]];
      const bool better = value > best[b];
      best[b] = better ? value : best[b];
      winner[b] = better ? j : winner[b];
      nonzero[b] |= value != 0.0f;
    }
  }
  uint32_t empty = 0;
  for (uint32_t b = 0; b < bins; ++b) {
    if (!nonzero[b]) winner[b] = kEmpty, ++empty;
  }
  for (uint32_t b = 0; empty > 0 && b < bins; ++b) {
    if (winner[b] != kEmpty) continue;
    uint32_t probe = probes_[b];
    for (uint32_t attempt = 0; attempt < 64 && winner[probe] == kEmpty; ++attempt) {
      probe = static_cast<uint32_t>(Mix64(probe + uint64_t{attempt} * bins) % bins);
    }
    winner[b] = winner[probe] == kEmpty ? 0 : winner[probe];
  }
  for (uint32_t t = 0; t < params_.tables; ++t) {
    uint32_t code = 0;
    for (uint32_t k = 0; k < params_.k; ++k) code = (code << bits_per_hash_) | winner[t * params_.k + k];
    codes[t] = code;
  }
}

std::string DwtaHash::Describe() const {
  return "dwta(k=" + std::to_string(params_.k) + ",l=" + std::to_string(params_.tables) +
         ",bin=" + std::to_string(params_.bin_size) + ")";
}

}  // namespace sparsebench
