#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "datasets/random.h"
#include "engine/lsh/hash_family.h"
#include "engine/model/parameters.h"

namespace sparsebench {

struct SelectorParams {
  static constexpr uint32_t kAutoProbes = ~0u;
  std::string kind = "lsh";    // lsh or random
  HashParams hash;             // for lsh
  uint32_t range_bits = 0;     // 2^range_bits buckets per table; 0: as many as codes
  uint32_t capacity = 64;      // bucket capacity (reservoir)
  bool top_frequency = false;  // keep the neurons found in most tables, not the first found
  bool pad_random = false;     // fill a short active set with random neurons up to target
  double lsh_share = 1.0;      // share of the unforced places the tables fill; random the rest
  uint32_t probes = 0;         // extra buckets queried per table (multi-probe)
  uint32_t reads = 0;          // neurons a query reads from its buckets at most; 0: all
  uint32_t random_run = 16;    // random neurons come in runs of this many consecutive ids
};

// Per-thread state for Select, reused across calls: a membership bitmap over the layer's
// neurons (an eighth of a byte each, so it stays in cache even at millions of neurons; all
// clear between selections) and a count per neuron of how often the tables returned it (a
// byte each, read and written at random: cheaper than hashing the ids into a small map).
struct SelectorScratch {
  static constexpr uint8_t kMaxCount = 255;  // counts stop here (a query of > 255 buckets)
  std::vector<uint64_t> member;
  std::vector<uint8_t> count;  // zero but for the neurons in `found`, until MoveCounts
  std::vector<uint32_t> codes, found;
  std::vector<uint8_t> found_count;  // found[i]'s count, after MoveCounts
  std::vector<std::span<const uint32_t>> buckets;
  // Work counts summed over selections: hash-table buckets read, and the neuron ids in them.
  uint64_t buckets_probed = 0, bucket_ids_read = 0;
  HashScratch hash;
  // Inference: the tables fill every open place (random neurons explore during training
  // only, and only pad what the tables miss here).
  bool inference = false;

  // Starts a selection over `rows` neurons with active = the forced ids, marked as members.
  void BeginWith(uint32_t rows, std::span<const uint32_t> forced, std::vector<uint32_t>& active);
  // Clears the marks of the active set: the end of a selection.
  void End(std::span<const uint32_t> active);
  bool Has(uint32_t id) const { return (member[id >> 6] >> (id & 63)) & 1; }
  void Mark(uint32_t id) { member[id >> 6] |= uint64_t{1} << (id & 63); }
  // Counts every sighting of an id in `buckets`, each id's first appending it to `found`.
  // Branch-free, with the ids and counts of later buckets prefetched: at millions of neurons the
  // counts do not stay in the nearer caches, and a mispredicted branch per new id would serialise
  // their misses.
  void CountAll(std::span<const std::span<const uint32_t>> buckets);
  uint32_t CountOf(uint32_t id) const { return count[id]; }
  // Sets id's count to 0 (it stays in `found`); whether it had one.
  bool Uncount(uint32_t id) { return std::exchange(count[id], uint8_t{0}) != 0; }
  // Moves the counts of `found` into found_count, in order, leaving every count zero: the
  // choice then reads them in sequence, and no later pass has to clear them at random.
  void MoveCounts();
  // After MoveCounts: marks and appends to `active` the `need` found neurons counted most
  // often (ties: the first found; never one counted 0), then empties `found`.
  void TakeMostFrequent(size_t need, std::vector<uint32_t>& active);
  // Zeroes the counts of the neurons found so far and empties `found`.
  void ClearCounts();
};

// Chooses the active neurons of a sparse layer for one input.
class NeuronSelector {
 public:
  virtual ~NeuronSelector() = default;
  // Re-indexes the layer from its weight rows (rows x dim, row-major; fp32 or bf16).
  virtual void Rebuild(const float* weights, uint32_t rows, uint32_t dim, int threads) = 0;
  virtual void Rebuild(const uint16_t* bf16_weights, uint32_t rows, uint32_t dim, int threads) = 0;
  void RebuildFrom(const Parameters& weights, int threads) {
    if (weights.bf16_weights()) {
      Rebuild(weights.w16.data(), weights.rows, weights.dim, threads);
    } else {
      Rebuild(weights.w.data(), weights.rows, weights.dim, threads);
    }
  }
  // Draws new hash functions (no-op for samplers without any).
  virtual void Rehash(uint64_t seed) = 0;
  // Writes the forced ids (always all of them), then others up to `target` in total.
  virtual void Select(std::span<const float> input, std::span<const uint32_t> forced,
                      uint32_t target, SelectorScratch& scratch, Rng& rng,
                      std::vector<uint32_t>& active) const = 0;
  virtual std::string Describe() const = 0;
  virtual size_t bytes() const = 0;
};

std::unique_ptr<NeuronSelector> MakeNeuronSelector(const SelectorParams& params, uint32_t rows);

}  // namespace sparsebench
