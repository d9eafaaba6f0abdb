// Active neurons from locality-sensitive hash tables over the layer's weight rows, mixed with
// uniform random ones.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/common/vector_ops.h"
#include "engine/lsh/lsh_tables.h"
#include "engine/lsh/selectors.h"

namespace sparsebench {
namespace {

class LshSelector : public NeuronSelector {
 public:
  LshSelector(const SelectorParams& params, uint32_t rows)
      : params_(params), rows_(rows), family_(MakeHashFamily(params.hash)) {
    // The build buffers are the model's, allocated with it as the weights are (not in an epoch).
    AssignZeros(codes_, size_t{rows} * family_->tables());
    tables_.Reserve(rows, family_->tables());
  }

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
      FetchBuckets(scratch, rng);
      if (params_.top_frequency) {
        SelectMostFrequent(active.size() + from_tables, scratch, active);
      } else {
        SelectFirstFound(active.size() + from_tables, scratch, rng, active);
      }
    }
    if (params_.pad_random || share < 1.0 || scratch.inference)
      PadWithRandom(rows_, target, params_.random_run, scratch, rng, active);
    scratch.End(active);
  }

  std::string Describe() const override {
    return "lsh(" + family_->Describe() + ",range=2^" + std::to_string(params_.range_bits) +
           ",cap=" + std::to_string(params_.capacity) +
           (params_.reads != 0 ? ",reads=" + std::to_string(params_.reads) : "") +
           (params_.top_frequency ? ",topfreq" : "") + (params_.pad_random ? ",pad=random" : "") +
           ")";
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
        family_->HashRows(weights + size_t{first} * dim, count, dim, codes_.data() + first, rows,
                          scratch);
      }
    }
    tables_.Build(codes_, rows, tables, family_->code_bits(), params_.range_bits, params_.capacity,
                  MixSeed(params_.hash.seed, ++builds_), threads);
  }

  // The query's buckets, nearest probes first (each table's own bucket, then each one's first
  // runner-up, and so on; tables from a random start), until they hold `reads` neurons. Their
  // starts are fetched ahead: each is a cache miss, and taken one after another they would
  // cost a memory round trip apiece.
  void FetchBuckets(SelectorScratch& scratch, Rng& rng) const {
    const uint32_t per_table = params_.probes + 1, tables = tables_.tables();
    for (size_t i = 0; i < scratch.codes.size(); ++i)
      tables_.PrefetchBucketStart(static_cast<uint32_t>(i / per_table), scratch.codes[i]);
    const size_t reads = params_.reads == 0 ? SIZE_MAX : params_.reads;
    const uint32_t start = rng.Below(tables);
    size_t read = 0;
    scratch.buckets.clear();
    for (uint32_t probe = 0; probe < per_table && read < reads; ++probe) {
      for (uint32_t i = 0, t = start; i < tables && read < reads;
           ++i, t = t + 1 == tables ? 0 : t + 1) {
        const std::span<const uint32_t> bucket =
            tables_.Bucket(t, scratch.codes[size_t{t} * per_table + probe]);
        PrefetchBytesL2(bucket.data(), bucket.size_bytes());
        scratch.buckets.push_back(bucket);
        read += bucket.size();
      }
    }
    scratch.buckets_probed += scratch.buckets.size();
    scratch.bucket_ids_read += read;
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
  void SelectMostFrequent(size_t target, SelectorScratch& scratch,
                          std::vector<uint32_t>& active) const {
    scratch.ClearCounts();
    scratch.CountAll(scratch.buckets);
    // The forced ids (all of active so far) are in already: a count of 0 leaves them out.
    for (uint32_t id : active) scratch.Uncount(id);
    scratch.MoveCounts();
    scratch.TakeMostFrequent(target > active.size() ? target - active.size() : 0, active);
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
