// Active neurons from locality-sensitive hash tables over the layer's weight rows.
#include <omp.h>

#include <algorithm>
#include <bit>

#include "engine/lsh_tables.h"
#include "engine/selectors.h"

namespace sparsebench {
namespace {

class LshSelector : public NeuronSelector {
 public:
  LshSelector(const SelectorParams& params, uint32_t rows)
      : params_(params), rows_(rows), family_(MakeHashFamily(params.hash)) {
    if (params_.range_bits == 0) {
      params_.range_bits = std::clamp<uint32_t>(std::bit_width(std::max(rows / 4, 1u)), 4, 24);
    }
  }

  void Rebuild(const float* weights, uint32_t rows, uint32_t dim, int threads) override {
    const uint32_t tables = family_->tables();
    std::vector<uint32_t>& codes = codes_;  // kept between rebuilds: no page faults
    codes.resize(size_t{rows} * tables);
#pragma omp parallel num_threads(threads)
    {
      HashScratch scratch;
      std::vector<uint32_t> row_codes(tables);
#pragma omp for schedule(static)
      for (uint32_t r = 0; r < rows; ++r) {
        family_->Hash(std::span(weights + size_t{r} * dim, dim), row_codes, scratch);
        for (uint32_t t = 0; t < tables; ++t) codes[size_t{t} * rows + r] = row_codes[t];
      }
    }
    tables_.Build(codes, rows, tables, params_.range_bits, params_.capacity,
                  MixSeed(params_.hash.seed, ++builds_), threads);
  }

  void Rehash(uint64_t seed) override {
    params_.hash.seed = seed;
    family_ = MakeHashFamily(params_.hash);
  }

  void Select(std::span<const float> input, std::span<const uint32_t> forced, uint32_t target,
              SelectorScratch& scratch, Rng& rng, std::vector<uint32_t>& active) const override {
    const uint32_t stamp = scratch.BeginWith(rows_, forced, active);
    if (tables_.tables() == 0) return;  // not built yet: nothing but the forced ids
    const uint32_t tables = family_->tables();
    scratch.codes.resize(tables);
    family_->Hash(input, scratch.codes, scratch.hash);
    if (params_.top_frequency) {
      SelectMostFrequent(target, stamp, scratch, active);
    } else {
      SelectFirstFound(target, stamp, scratch, rng, active);
    }
    if (params_.pad_random) PadWithRandom(rows_, target, stamp, scratch, rng, active);
  }

  std::string Describe() const override {
    return "lsh(" + family_->Describe() + ",range=2^" + std::to_string(params_.range_bits) +
           ",cap=" + std::to_string(params_.capacity) + (params_.top_frequency ? ",topfreq" : "") +
           (params_.pad_random ? ",pad=random" : "") + ")";
  }
  size_t bytes() const override { return tables_.bytes() + codes_.size() * sizeof(uint32_t); }

 private:
  // Union of the buckets, tables visited from a random start so no table is favoured.
  void SelectFirstFound(uint32_t target, uint32_t stamp, SelectorScratch& scratch, Rng& rng,
                        std::vector<uint32_t>& active) const {
    const uint32_t tables = tables_.tables();
    const uint32_t start = rng.Below(tables);
    for (uint32_t i = 0; i < tables && active.size() < target; ++i) {
      const uint32_t t = (start + i) % tables;
      for (uint32_t id : tables_.Bucket(t, scratch.codes[t])) {
        if (scratch.stamp[id] == stamp) continue;
        scratch.stamp[id] = stamp;
        active.push_back(id);
        if (active.size() >= target) break;
      }
    }
  }

  // Counts how many tables return each neuron and keeps the most frequent ones.
  void SelectMostFrequent(uint32_t target, uint32_t stamp, SelectorScratch& scratch,
                          std::vector<uint32_t>& active) const {
    const size_t forced = active.size();
    scratch.counts.resize(rows_);
    for (uint32_t t = 0; t < tables_.tables(); ++t) {
      for (uint32_t id : tables_.Bucket(t, scratch.codes[t])) {
        if (scratch.stamp[id] != stamp) {
          scratch.stamp[id] = stamp;
          scratch.counts[id] = 0;
          active.push_back(id);
        }
        ++scratch.counts[id];
      }
    }
    if (active.size() <= target) return;
    auto first = active.begin() + static_cast<std::ptrdiff_t>(forced);
    const auto keep = static_cast<std::ptrdiff_t>(target > forced ? target - forced : 0);
    std::nth_element(first, first + keep, active.end(), [&](uint32_t a, uint32_t b) {
      return scratch.counts[a] != scratch.counts[b] ? scratch.counts[a] > scratch.counts[b] : a < b;
    });
    active.resize(forced + static_cast<size_t>(keep));
  }

  SelectorParams params_;
  uint32_t rows_;
  std::unique_ptr<HashFamily> family_;
  LshTables tables_;
  std::vector<uint32_t> codes_;
  uint64_t builds_ = 0;
};

}  // namespace

std::unique_ptr<NeuronSelector> MakeLshSelector(const SelectorParams& params, uint32_t rows) {
  return std::make_unique<LshSelector>(params, rows);
}

}  // namespace sparsebench
