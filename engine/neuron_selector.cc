#include "engine/neuron_selector.h"

#include <algorithm>

#include "engine/engine_error.h"
#include "engine/selectors.h"

namespace sparsebench {

void SelectorScratch::BeginWith(uint32_t rows, std::span<const uint32_t> forced, std::vector<uint32_t>& active) {
  const size_t words = (size_t{rows} + 63) / 64;
  if (member.size() != words) member.assign(words, 0);
  if (count.size() != rows) count.assign(rows, 0);
  active.assign(forced.begin(), forced.end());
  for (uint32_t id : forced) Mark(id);
}

void SelectorScratch::End(std::span<const uint32_t> active) {
  for (uint32_t id : active) member[id >> 6] = 0;  // whole words: cheaper than one bit each
}

void SelectorScratch::ClearCounts() {
  for (uint32_t id : found) count[id] = 0;
  found.clear();
}

void PadWithRandom(uint32_t rows, uint32_t target, SelectorScratch& scratch, Rng& rng,
                   std::vector<uint32_t>& active) {
  target = std::min(target, rows);
  // Rejection sampling; bounded because target <= rows and most draws hit when target << rows.
  for (uint64_t tries = 0; active.size() < target && tries < 64ull * target; ++tries) {
    const uint32_t id = rng.Below(rows);
    if (scratch.Has(id)) continue;
    scratch.Mark(id);
    active.push_back(id);
  }
}

std::unique_ptr<NeuronSelector> MakeNeuronSelector(const SelectorParams& params, uint32_t rows) {
  if (params.kind == "lsh") return MakeLshSelector(params, rows);
  if (params.kind == "random") return MakeRandomSelector(params, rows);
  throw ConfigError("unknown neuron selector '" + params.kind + "' (known: lsh, random)");
}

}  // namespace sparsebench
