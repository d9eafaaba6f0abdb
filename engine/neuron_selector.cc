#include "engine/neuron_selector.h"

#include <algorithm>

#include "engine/engine_error.h"
#include "engine/selectors.h"

namespace sparsebench {

uint32_t SelectorScratch::Begin(uint32_t rows) {
  if (tag.size() != rows || epoch >= (1u << 24) - 16) {
    tag.assign(rows, 0);
    epoch = 0;
  }
  return ++epoch;
}

uint32_t SelectorScratch::BeginWith(uint32_t rows, std::span<const uint32_t> forced,
                                    std::vector<uint32_t>& active) {
  const uint32_t s = Begin(rows);
  active.assign(forced.begin(), forced.end());
  for (uint32_t id : forced) Mark(id, s);
  return s;
}

void PadWithRandom(uint32_t rows, uint32_t target, uint32_t stamp, SelectorScratch& scratch,
                   Rng& rng, std::vector<uint32_t>& active) {
  target = std::min(target, rows);
  // Rejection sampling; bounded because target <= rows and most draws hit when target << rows.
  for (uint64_t tries = 0; active.size() < target && tries < 64ull * target; ++tries) {
    const uint32_t id = rng.Below(rows);
    if (scratch.Has(id, stamp)) continue;
    scratch.Mark(id, stamp);
    active.push_back(id);
  }
}

std::unique_ptr<NeuronSelector> MakeNeuronSelector(const SelectorParams& params, uint32_t rows) {
  if (params.kind == "lsh") return MakeLshSelector(params, rows);
  if (params.kind == "random") return MakeRandomSelector(params, rows);
  throw ConfigError("unknown neuron selector '" + params.kind + "' (known: lsh, random)");
}

}  // namespace sparsebench
