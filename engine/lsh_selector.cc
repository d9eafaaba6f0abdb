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

// How many of `counts` are at least c: one pass the compiler vectorises.
size_t CountAtLeast(std::span<const uint8_t> counts, uint32_t c) {
  size_t n = 0;
  for (uint8_t count : counts) n += count >= c;
  return n;
}

// The largest threshold t in [1, most] with at least `need` counts >= t (1 if none has),
// found by bisection: a handful of vector passes over the counts, where a histogram would
// chain an increment per count through memory.
uint32_t Threshold(std::span<const uint8_t> counts, uint32_t most, size_t need) {
  uint32_t low = 1, high = most;
  while (low < high) {
    const uint32_t mid = low + (high - low + 1) / 2;
    if (CountAtLeast(counts, mid) >= need) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return low;
}

class LshSelector : public NeuronSelector {
 public:
  LshSelector(const SelectorParams& params, uint32_t rows)
      : params_(params), rows_(rows), family_(MakeHashFamily(params.hash)) {}

  void Rebuild(const float* weights, uint32_t rows, uint32_t dim, int threads) override {
    HashAndBuild(weights, rows, dim, threads);
  }
  void Rebuild(const uint16_t* weights, uint32_t rows, uint32_t dim, int threads) override {
    HashAndBuild(weights, rows, dim, threads);
  }

  void Rehash(uint64_t seed) override {
    params_.hash.seed = seed;
    family_ = MakeHashFamily(params_.hash);
  }

  // The forced ids, then the tables' share of the remaining places, then random neurons.
  void Select(std::span<const float> input, std::span<const uint32_t> forced, uint32_t target,
              SelectorScratch& scratch, Rng& rng, std::vector<uint32_t>& active) const override {
    scratch.BeginWith(rows_, forced, active);
    const size_t open = target > active.size() ? target - active.size() : 0;
    const double share = scratch.inference ? 1.0 : params_.lsh_share;
    const auto from_tables = static_cast<size_t>(std::ceil(share * static_cast<double>(open)));
    if (tables_.tables() > 0 && from_tables > 0) {
      scratch.codes.resize(size_t{family_->tables()} * (params_.probes + 1));
      family_->HashProbes(input, params_.probes, scratch.codes, scratch.hash);
      FetchBuckets(scratch);
      if (params_.top_frequency) {
        SelectMostFrequent(active.size() + from_tables, scratch, active);
      } else {
        SelectFirstFound(active.size() + from_tables, scratch, rng, active);
      }
    }
    if (params_.pad_random || share < 1.0 || scratch.inference) PadWithRandom(rows_, target, scratch, rng, active);
    scratch.End(active);
  }

  std::string Describe() const override {
    return "lsh(" + family_->Describe() + ",range=2^" + std::to_string(params_.range_bits) +
           ",cap=" + std::to_string(params_.capacity) + (params_.top_frequency ? ",topfreq" : "") +
           (params_.pad_random ? ",pad=random" : "") + ")";
  }
  size_t bytes() const override { return tables_.bytes() + codes_.size() * sizeof(uint32_t); }

 private:
  // Hashes every row, a chunk of rows per task, then builds the tables.
  template <typename Weight>
  void HashAndBuild(const Weight* weights, uint32_t rows, uint32_t dim, int threads) {
    const uint32_t tables = family_->tables();
    if (codes_.size() != size_t{rows} * tables)
      AssignZeros(codes_, size_t{rows} * tables);  // kept between rebuilds
    constexpr uint32_t kChunk = 256;
    const auto chunks = static_cast<int64_t>((rows + kChunk - 1) / kChunk);
#pragma omp parallel num_threads(threads)
    {
      HashScratch scratch;
#pragma omp for schedule(static)
      for (int64_t c = 0; c < chunks; ++c) {
        const uint32_t first = static_cast<uint32_t>(c) * kChunk,
                       count = std::min(kChunk, rows - first);
        family_->HashRows(weights + size_t{first} * dim, count, dim, codes_.data() + first, rows, scratch);
      }
    }
    tables_.Build(codes_, rows, tables, family_->code_bits(), params_.range_bits, params_.capacity,
                  MixSeed(params_.hash.seed, ++builds_), threads);
  }

  // The query's bucket in every table, fetched ahead: each is a cache miss, and taken one
  // after another they would cost a memory round trip apiece.
  void FetchBuckets(SelectorScratch& scratch) const {
    const uint32_t per_table = params_.probes + 1;
    const size_t count = scratch.codes.size();
    scratch.buckets.resize(count);
    for (size_t i = 0; i < count; ++i) tables_.PrefetchBucketStart(static_cast<uint32_t>(i / per_table), scratch.codes[i]);
    for (size_t i = 0; i < count; ++i) {
      scratch.buckets[i] = tables_.Bucket(static_cast<uint32_t>(i / per_table), scratch.codes[i]);
      PrefetchBytesL2(scratch.buckets[i].data(), scratch.buckets[i].size_bytes());
    }
  }

  // Union of the buckets, tables visited from a random start so no table is favoured.
  void SelectFirstFound(size_t target, SelectorScratch& scratch, Rng& rng,
                        std::vector<uint32_t>& active) const {
    const auto buckets = static_cast<uint32_t>(scratch.buckets.size());
    const uint32_t start = rng.Below(buckets);
    for (uint32_t i = 0; i < buckets && active.size() < target; ++i) {
      for (uint32_t id : scratch.buckets[(start + i) % buckets]) {
        if (scratch.Has(id)) continue;
        scratch.Mark(id);
        active.push_back(id);
        if (active.size() >= target) break;
      }
    }
  }

  // Counts how many probed buckets return each neuron and keeps the most frequent ones (ties:
  // the first found), marking them.
  void SelectMostFrequent(size_t target, SelectorScratch& scratch, std::vector<uint32_t>& active) const {
    scratch.ClearCounts();
    scratch.CountAll(scratch.buckets);
    // The forced ids (all of active so far) are in already: a count of 0 leaves them out.
    size_t forced_found = 0;
    for (uint32_t id : active) forced_found += scratch.Uncount(id);
    scratch.MoveCounts();
    std::vector<uint32_t>& found = scratch.found;
    const std::vector<uint8_t>& counts = scratch.found_count;
    const size_t need = target > active.size() ? target - active.size() : 0;
    if (found.size() - forced_found <= need) {
      for (size_t i = 0; i < found.size(); ++i) {
        if (counts[i] > 0) scratch.Mark(found[i]), active.push_back(found[i]);
      }
      found.clear();  // counts are zero again
      return;
    }
    const uint32_t most = *std::max_element(counts.begin(), counts.end());
    const uint32_t threshold = Threshold(counts, most, need);
    // Take every neuron counted more often, and the first found of those counted this often.
    size_t at_threshold = need - CountAtLeast(counts, threshold + 1);
    for (size_t i = 0; i < found.size(); ++i) {
      const uint32_t c = counts[i];
      if (c > threshold || (c == threshold && at_threshold > 0)) {
        at_threshold -= c == threshold;
        scratch.Mark(found[i]);
        active.push_back(found[i]);
      }
    }
    found.clear();
  }

  SelectorParams params_;
  uint32_t rows_;
  std::unique_ptr<HashFamily> family_;
  LshTables tables_;
  std::vector<uint32_t, AlignedAllocator<uint32_t>> codes_;
  uint64_t builds_ = 0;
};

}  // namespace

std::unique_ptr<NeuronSelector> MakeLshSelector(const SelectorParams& params, uint32_t rows) {
  return std::make_unique<LshSelector>(params, rows);
}

}  // namespace sparsebench
