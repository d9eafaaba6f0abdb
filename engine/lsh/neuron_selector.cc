#include "engine/lsh/neuron_selector.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "engine/api/engine_error.h"
#include "engine/common/vector_ops.h"
#include "engine/lsh/selectors.h"

namespace sparsebench {

namespace {

// How many of `counts` are at least c: one pass the compiler vectorises.
size_t CountAtLeast(std::span<const uint8_t> counts, uint32_t c) {
  size_t n = 0;
  for (uint8_t count : counts) n += count >= c;
  return n;
}

// The largest t >= 1 with at least `need` counts >= t (1 if there is none), by bisection: a
// handful of vector passes over the counts, where a histogram would chain an increment per
// count through memory.
uint32_t Threshold(std::span<const uint8_t> counts, size_t need) {
  uint32_t low = 1, high = counts.empty() ? 1 : *std::max_element(counts.begin(), counts.end());
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

}  // namespace

void SelectorScratch::BeginWith(uint32_t rows, std::span<const uint32_t> forced,
                                std::vector<uint32_t>& active) {
  const size_t words = (size_t{rows} + 63) / 64;
  if (member.size() != words) member.assign(words, 0);
  if (count.size() != rows) count.assign(rows, 0);
  active.assign(forced.begin(), forced.end());
  for (uint32_t id : forced) Mark(id);
}

void SelectorScratch::End(std::span<const uint32_t> active) {
  for (uint32_t id : active) member[id >> 6] = 0;  // whole words: cheaper than one bit each
}

void SelectorScratch::CountAll(std::span<const std::span<const uint32_t>> buckets) {
  size_t sightings = 0;
  for (std::span<const uint32_t> bucket : buckets) sightings += bucket.size();
  const size_t listed = found.size();
  found.resize(listed + sightings);
  uint32_t* next = found.data() + listed;
  constexpr size_t kIdsAhead = 16;    // buckets whose ids are fetched ahead of the one counted
  constexpr size_t kCountsAhead = 3;  // and whose counts are
  for (size_t b = 0; b < std::min(kIdsAhead, buckets.size()); ++b)
    PrefetchBytes(buckets[b].data(), buckets[b].size_bytes());
  for (size_t b = 0; b < buckets.size(); ++b) {
    if (b + kIdsAhead < buckets.size())
      PrefetchBytes(buckets[b + kIdsAhead].data(), buckets[b + kIdsAhead].size_bytes());
    if (b + kCountsAhead < buckets.size()) {
      for (uint32_t id : buckets[b + kCountsAhead]) __builtin_prefetch(count.data() + id, 1);
    }
    for (uint32_t id : buckets[b]) {
      uint8_t& c = count[id];
      *next = id;
      next += c == 0;
      c += c < kMaxCount;
    }
  }
  found.resize(static_cast<size_t>(next - found.data()));
}

void SelectorScratch::MoveCounts() {
  found_count.resize(found.size());
  for (size_t i = 0; i < found.size(); ++i)
    found_count[i] = std::exchange(count[found[i]], uint8_t{0});
}

void SelectorScratch::TakeMostFrequent(size_t need, std::vector<uint32_t>& active) {
  const uint32_t threshold = Threshold(found_count, need);
  // Every neuron counted more often, then the first found of those counted this often.
  size_t at_threshold = need - CountAtLeast(found_count, threshold + 1);
  for (size_t i = 0; i < found.size(); ++i) {
    const uint32_t c = found_count[i];
    if (c > threshold || (c == threshold && at_threshold > 0)) {
      at_threshold -= c == threshold;
      Mark(found[i]);
      active.push_back(found[i]);
    }
  }
  found.clear();
}

void SelectorScratch::ClearCounts() {
  for (uint32_t id : found) count[id] = 0;
  found.clear();
}

void PadWithRandom(uint32_t rows, uint32_t target, uint32_t run, SelectorScratch& scratch, Rng& rng,
                   std::vector<uint32_t>& active) {
  assert(run >= 1);
  target = std::min(target, rows);
  run = std::min(run, rows);
  // Rejection sampling; bounded because target <= rows and most draws hit when target << rows.
  for (uint64_t tries = 0; active.size() < target && tries < 64ull * target; ++tries) {
    const uint32_t start = rng.Below(rows);
    for (uint32_t i = 0; i < run && active.size() < target; ++i) {
      const uint32_t id = start < rows - i ? start + i : start - (rows - i);
      if (scratch.Has(id)) continue;
      scratch.Mark(id);
      active.push_back(id);
    }
  }
}

std::unique_ptr<NeuronSelector> MakeNeuronSelector(const SelectorParams& params, uint32_t rows) {
  if (params.kind == "lsh") return MakeLshSelector(params, rows);
  if (params.kind == "random") return MakeRandomSelector(params, rows);
  throw ConfigError("unknown neuron selector '" + params.kind + "' (known: lsh, random)");
}

}  // namespace sparsebench
