#include "engine/lsh/dwta_hash.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <numeric>

#include "datasets/random.h"
#include "engine/api/engine_error.h"
#include "engine/common/transpose.h"
#include "engine/lsh/dwta_block.h"

namespace sparsebench {

namespace {

using Ints = int32_t __attribute__((vector_size(64)));  // 16 lanes: a block's rows

}  // namespace

DwtaHash::DwtaHash(const HashParams& params)
    : params_(params), bits_per_hash_(static_cast<uint32_t>(std::countr_zero(params.bin_size))) {
  if (!std::has_single_bit(params.bin_size) || params.bin_size < 2 ||
      params.bin_size > params.dim) {
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
    for (uint32_t i = params.dim; i > 1; --i)
      std::swap(permutation[i - 1], permutation[rng.Below(i)]);
    const size_t take = std::min<size_t>(params.dim / params.bin_size * params.bin_size,
                                         size_t{bins} * params.bin_size - positions_.size());
    positions_.insert(positions_.end(), permutation.begin(),
                      permutation.begin() + static_cast<std::ptrdiff_t>(take));
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

// Scratch layout: floats = best | gap (best - runner-up) per bin; ints = winner | runner-up |
// nonzero per bin.
void DwtaHash::Winners(std::span<const float> x, HashScratch& scratch) const {
  const uint32_t bins = params_.k * params_.tables;
  const uint32_t size = params_.bin_size;
  scratch.floats.resize(2 * size_t{bins});
  scratch.ints.resize(3 * size_t{bins});
  float* best = scratch.floats.data();
  float* second = best + bins;
  uint32_t* winner = scratch.ints.data();
  uint32_t* runner = winner + bins;
  uint32_t* nonzero = runner + bins;
  const float* v = x.data();
  // Slot-major positions let the compiler vectorise across bins (with gathers).
  const uint32_t* first = positions_.data();
#pragma omp simd
  for (uint32_t b = 0; b < bins; ++b) {
    best[b] = v[first[b]];
    second[b] = -INFINITY;
    winner[b] = 0;
    runner[b] = 0;
    nonzero[b] = best[b] != 0.0f;
  }
  for (uint32_t j = 1; j < size; ++j) {
    const uint32_t* pos = positions_.data() + size_t{j} * bins;
#pragma omp simd
    for (uint32_t b = 0; b < bins; ++b) {
      const float value = v[pos[b]];
      const bool better = value > best[b];
      const bool runner_up = !better && value > second[b];
      second[b] = better ? best[b] : runner_up ? value : second[b];
      runner[b] = better ? winner[b] : runner_up ? j : runner[b];
      best[b] = better ? value : best[b];
      winner[b] = better ? j : winner[b];
      nonzero[b] |= value != 0.0f;
    }
  }
#pragma omp simd
  for (uint32_t b = 0; b < bins; ++b) second[b] = best[b] - second[b];
  constexpr uint32_t kEmpty = ~0u;
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
    runner[b] = winner[b];
    second[b] = INFINITY;  // a borrowed winner is not probed
  }
}

void DwtaHash::Hash(std::span<const float> x, std::span<uint32_t> codes,
                    HashScratch& scratch) const {
  Winners(x, scratch);
  const uint32_t* winner = scratch.ints.data();
  for (uint32_t t = 0; t < params_.tables; ++t) {
    uint32_t code = 0;
    for (uint32_t k = 0; k < params_.k; ++k)
      code = (code << bits_per_hash_) | winner[t * params_.k + k];
    codes[t] = code;
  }
}

namespace {

// A probe's swapped hashes (second < 0: one hash) and its score, the sum of their gaps.
struct Swap {
  float score;
  int32_t first, second;
};

// The probes of one table in order: each hash alone, smallest gap first, then pairs of hashes,
// smallest gap sum first (Lv et al.'s multi-probe order within each size).
void OrderSwaps(const float* gap, uint32_t k, uint32_t probes, Swap* swaps) {
  Swap* end = swaps;
  for (uint32_t i = 0; i < k; ++i) *end++ = {gap[i], static_cast<int32_t>(i), -1};
  auto by_score = [](const Swap& a, const Swap& b) {
    return a.score != b.score ? a.score < b.score
                              : std::pair(a.first, a.second) < std::pair(b.first, b.second);
  };
  std::sort(swaps, end, by_score);
  if (probes <= k) return;
  for (uint32_t i = 0; i < k; ++i) {
    for (uint32_t j = i + 1; j < k; ++j)
      *end++ = {gap[i] + gap[j], static_cast<int32_t>(i), static_cast<int32_t>(j)};
  }
  std::sort(swaps + k, end, by_score);
}

}  // namespace

// Probe p of a table swaps the winners of the hashes its Swap names for their runners-up.
void DwtaHash::HashProbes(std::span<const float> x, uint32_t probes, std::span<uint32_t> codes,
                          HashScratch& scratch) const {
  assert(probes <= MaxProbes(params_.k));  // ResolveLsh rejects more
  Winners(x, scratch);
  const uint32_t bins = params_.k * params_.tables, k = params_.k;
  const uint32_t* winner = scratch.ints.data();
  const uint32_t* runner = winner + bins;
  const float* gap = scratch.floats.data() + bins;
  const uint32_t mask = (1u << bits_per_hash_) - 1;
  std::array<Swap, MaxProbes(32)> swaps;  // k <= 32: codes are 32 bits
  for (uint32_t t = 0; t < params_.tables; ++t) {
    uint32_t code = 0;
    for (uint32_t i = 0; i < k; ++i) code = (code << bits_per_hash_) | winner[t * k + i];
    uint32_t* out = codes.data() + size_t{t} * (probes + 1);
    out[0] = code;
    OrderSwaps(gap + t * k, k, probes, swaps.data());
    for (uint32_t p = 1; p <= probes; ++p) {
      uint32_t probe = code;
      for (const int32_t i : {swaps[p - 1].first, swaps[p - 1].second}) {
        if (i < 0) continue;
        const uint32_t shift = bits_per_hash_ * (k - 1 - static_cast<uint32_t>(i));
        probe = (probe & ~(mask << shift)) | (runner[t * k + static_cast<uint32_t>(i)] << shift);
      }
      out[p] = probe;
    }
  }
}

void DwtaHash::HashRows(const float* rows, uint32_t count, size_t stride, uint32_t* codes,
                        size_t codes_stride, HashScratch& scratch) const {
  for (uint32_t first = 0; first < count; first += kBlock) {
    HashBlock(rows + first * stride, std::min(kBlock, count - first), stride, codes + first,
              codes_stride, scratch);
  }
}

// Weight rows: the transposed block (dim x kBlock) lets every bin's winner-take-all run as
// vector compares across the block's rows, with no gathers. A row with an all-zero bin needs
// the densification probes and takes the one-row path.
void DwtaHash::HashBlock(const float* rows, uint32_t count, size_t stride, uint32_t* codes,
                         size_t codes_stride, HashScratch& scratch) const {
  const uint32_t bins = params_.k * params_.tables, dim = params_.dim, size = params_.bin_size;
  static_assert(kBlock == 16, "TransposeTile moves 16 x 16 tiles");
  scratch.floats.resize(size_t{dim} * kBlock);
  float* columns = scratch.floats.data();
  uint32_t c = 0;
  for (; c + kBlock <= dim; c += kBlock)
    TransposeTile(rows + c, stride, count, columns + size_t{c} * kBlock);
  for (; c < dim; ++c) {
    for (uint32_t r = 0; r < kBlock; ++r)
      columns[c * kBlock + r] = r < count ? rows[r * stride + c] : 0.0f;
  }
  scratch.ints.resize(size_t{bins} * kBlock);
  uint32_t* winners = scratch.ints.data();
  const Ints empty = BlockWinners<Floats, Ints>(columns, positions_, bins, size, winners);
  BlockCodes<kBlock>(winners, params_.tables, params_.k, bits_per_hash_, count, codes,
                     codes_stride);
  for (uint32_t r = 0; r < count; ++r) {
    if (empty[r] != 0) HashOneRow(std::span(rows + r * stride, dim), codes + r, codes_stride);
  }
}

void DwtaHash::HashOneRow(std::span<const float> row, uint32_t* codes, size_t codes_stride) const {
  std::vector<uint32_t> row_codes(params_.tables);
  HashScratch one;
  Hash(row, row_codes, one);
  for (uint32_t t = 0; t < params_.tables; ++t) codes[t * codes_stride] = row_codes[t];
}

std::string DwtaHash::Describe() const {
  return "dwta(k=" + std::to_string(params_.k) + ",l=" + std::to_string(params_.tables) +
         ",bin=" + std::to_string(params_.bin_size) + ")";
}

}  // namespace sparsebench
