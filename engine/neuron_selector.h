#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "datasets/random.h"
#include "engine/hash_family.h"

namespace sparsebench {

struct SelectorParams {
  static constexpr uint32_t kAutoProbes = ~0u;
  std::string kind = "lsh";        // lsh or random
  HashParams hash;                 // for lsh
  uint32_t range_bits = 0;         // 2^range_bits buckets per table; 0: as many as codes
  uint32_t capacity = 64;          // bucket capacity (reservoir)
  bool top_frequency = false;      // keep the neurons found in most tables, not the first found
  bool pad_random = false;         // fill a short active set with random neurons up to target
  double lsh_share = 1.0;          // share of the unforced places the tables fill; random the rest
  uint32_t probes = 0;             // extra buckets queried per table (multi-probe)
};

// Per-thread state for Select, sized by the layer and reused across calls. Each neuron has
// one word: the tag of the selection step that last touched it (high 24 bits) and a count
// (low 8 bits), so "is it a member" and "how often was it found" cost one memory access.
struct SelectorScratch {
  std::vector<uint32_t> tag;
  uint32_t epoch = 0;
  std::vector<uint32_t> codes;
  std::vector<uint32_t> found, histogram;
  std::vector<std::span<const uint32_t>> buckets;
  HashScratch hash;

  // Starts a new selection over `rows` neurons; returns the tag that marks members.
  uint32_t Begin(uint32_t rows);
  // A fresh tag within the same selection (Begin leaves room for a few).
  uint32_t Next() { return ++epoch; }
  // Begin, then active = the forced ids, tagged.
  uint32_t BeginWith(uint32_t rows, std::span<const uint32_t> forced, std::vector<uint32_t>& active);
  bool Has(uint32_t id, uint32_t t) const { return tag[id] >> 8 == t; }
  void Mark(uint32_t id, uint32_t t) { tag[id] = t << 8; }
};

// Chooses the active neurons of a sparse layer for one input.
class NeuronSelector {
 public:
  virtual ~NeuronSelector() = default;
  // Re-indexes the layer from its weight rows (rows x dim, row-major).
  virtual void Rebuild(const float* weights, uint32_t rows, uint32_t dim, int threads) = 0;
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
