// Active neurons from locality-sensitive hash tables over the layer's weight rows, mixed with
// uniform random ones.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "engine/lsh_tables.h"
#include "engine/selectors.h"
#include "engine/vector_ops.h"

namespace sparsebench {
namespace {

class LshSelector : public NeuronSelector {
 public:
  LshSelector(const SelectorParams& params, uint32_t rows)
      : params_(params), rows_(rows), family_(MakeHashFamily(params.hash)) {}

  void Rebuild(const float* weights, uint32_t rows, uint32_t dim, int threads) override {
    const uint32_t tables = family_->tables();
    codes_.resize(size_t{rows} * tables);  // kept between rebuilds: no page faults
    constexpr uint32_t kChunk = 256;
    const auto chunks = static_cast<int64_t>((rows + kChunk - 1) / kChunk);
#pragma omp parallel num_threads(threads)
    {
      HashScratch scratch;
#pragma omp for schedule(static)
      for (int64_t c = 0; c < chunks; ++c) {
        const uint32_t first = static_cast<uint32_t>(c) * kChunk;
        family_->HashRows(weights + size_t{first} * dim, std::min(kChunk, rows - first), dim,
                          codes_.data() + first, rows, scratch);
      }
    }
    tables_.Build(codes_, rows, tables, family_->code_bits(), params_.range_bits, params_.capacity,
                  MixSeed(params_.hash.seed, ++builds_), threads);
  }

  void Rehash(uint64_t seed) override {
    params_.hash.seed = seed;
    family_ = MakeHashFamily(params_.hash);
  }

  // The forced ids, then the tables' share of the remaining places, then random neurons.
  void Select(std::span<const float> input, std::span<const uint32_t> forced, uint32_t target,
              SelectorScratch& scratch, Rng& rng, std::vector<uint32_t>& active) const override {
    uint32_t stamp = scratch.BeginWith(rows_, forced, active);
    const size_t open = target > active.size() ? target - active.size() : 0;
    const auto from_tables = static_cast<size_t>(std::ceil(params_.lsh_share * static_cast<double>(open)));
    if (tables_.tables() > 0 && from_tables > 0) {
      scratch.codes.resize(size_t{family_->tables()} * (params_.probes + 1));
      family_->HashProbes(input, params_.probes, scratch.codes, scratch.hash);
      FetchBuckets(scratch);
      if (params_.top_frequency) {
        stamp = SelectMostFrequent(active.size() + from_tables, stamp, scratch, active);
      } else {
        SelectFirstFound(active.size() + from_tables, stamp, scratch, rng, active);
      }
    }
    if (params_.pad_random || params_.lsh_share < 1.0) PadWithRandom(rows_, target, stamp, scratch, rng, active);
  }

  std::string Describe() const override {
    return "lsh(" + family_->Describe() + ",range=2^" + std::to_string(params_.range_bits) +
           ",cap=" + std::to_string(params_.capacity) + (params_.top_frequency ? ",topfreq" : "") +
           (params_.pad_random ? ",pad=random" : "") + ")";
  }
  size_t bytes() const override { return tables_.bytes() + codes_.size() * sizeof(uint32_t); }

 private:
  // The query's bucket in every table, fetched ahead: each is a cache miss, and taken one
  // after another they would cost a memory round trip apiece.
  void FetchBuckets(SelectorScratch& scratch) const {
    const uint32_t per_table = params_.probes + 1;
    const size_t count = scratch.codes.size();
    scratch.buckets.resize(count);
    for (size_t i = 0; i < count; ++i) tables_.PrefetchBucketStart(static_cast<uint32_t>(i / per_table), scratch.codes[i]);
    for (size_t i = 0; i < count; ++i) {
      scratch.buckets[i] = tables_.Bucket(static_cast<uint32_t>(i / per_table), scratch.codes[i]);
      __builtin_prefetch(scratch.buckets[i].data());
    }
  }

  // Union of the buckets, tables visited from a random start so no table is favoured.
  void SelectFirstFound(size_t target, uint32_t stamp, SelectorScratch& scratch, Rng& rng,
                        std::vector<uint32_t>& active) const {
    const auto buckets = static_cast<uint32_t>(scratch.buckets.size());
    const uint32_t start = rng.Below(buckets);
    for (uint32_t i = 0; i < buckets && active.size() < target; ++i) {
      for (uint32_t id : scratch.buckets[(start + i) % buckets]) {
        if (scratch.Has(id, stamp)) continue;
        scratch.Mark(id, stamp);
        active.push_back(id);
        if (active.size() >= target) break;
      }
    }
  }

  // Counts how many tables return each neuron and keeps the most frequent ones (ties: the
  // first found); returns the stamp that now marks the active set.
  uint32_t SelectMostFrequent(size_t target, uint32_t forced_stamp, SelectorScratch& scratch,
                              std::vector<uint32_t>& active) const {
    const uint32_t seen = scratch.Next();
    std::vector<uint32_t>& found = scratch.found;
    found.clear();
    for (std::span<const uint32_t> bucket : scratch.buckets) {
      for (uint32_t id : bucket) {
        uint32_t& word = scratch.tag[id];
        const uint32_t t = word >> 8;
        if (t == seen) {
          word += (word & 0xff) != 0xff;  // counts saturate at 255
        } else if (t != forced_stamp) {
          word = seen << 8 | 1;
          found.push_back(id);
        }
      }
    }
    auto count = [&](uint32_t id) { return scratch.tag[id] & 0xff; };
    const size_t need = target > active.size() ? target - active.size() : 0;
    uint32_t threshold = 1;  // take every found neuron counted at least this often
    if (found.size() > need) {
      std::vector<uint32_t>& histogram = scratch.histogram;
      const auto most = std::min<uint32_t>(static_cast<uint32_t>(scratch.buckets.size()), 255);
      histogram.assign(most + 2, 0);
      for (uint32_t id : found) ++histogram[count(id)];
      size_t above = 0;
      for (threshold = most; threshold > 1 && above + histogram[threshold] < need; --threshold) {
        above += histogram[threshold];
      }
      size_t at_threshold = need - above;  // of the neurons counted exactly `threshold` times
      for (uint32_t id : found) {
        const uint32_t c = count(id);
        if (c == threshold && at_threshold > 0) --at_threshold, active.push_back(id);
        if (c > threshold) active.push_back(id);
      }
    } else {
      active.insert(active.end(), found.begin(), found.end());
    }
    const uint32_t member = scratch.Next();
    for (uint32_t id : active) scratch.Mark(id, member);
    return member;
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
