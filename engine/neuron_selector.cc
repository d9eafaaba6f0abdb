#include "engine/neuron_selector.h"

#include <algorithm>
#include <bit>

#include "engine/engine_error.h"
#include "engine/selectors.h"

namespace sparsebench {

namespace {

uint32_t Slot(uint32_t id, size_t mask) { return static_cast<uint32_t>((id * 0x9e3779b1u) & mask); }

}  // namespace

void SelectorScratch::BeginWith(uint32_t rows, std::span<const uint32_t> forced, std::vector<uint32_t>& active) {
  const size_t words = (size_t{rows} + 63) / 64;
  if (member.size() != words) member.assign(words, 0);
  active.assign(forced.begin(), forced.end());
  for (uint32_t id : forced) Mark(id);
}

void SelectorScratch::End(std::span<const uint32_t> active) {
  for (uint32_t id : active) member[id >> 6] = 0;  // whole words: cheaper than one bit each
}

void SelectorScratch::ClearCounts(size_t capacity_hint) {
  const size_t size = std::bit_ceil(std::max<size_t>(64, 2 * capacity_hint));
  if (slot_id.size() < size) {
    slot_id.assign(size, ~0u);
    slot_count.assign(size, 0);
    used_slots.clear();
  }
  for (uint32_t s : used_slots) slot_id[s] = ~0u;
  used_slots.clear();
  found.clear();
}

void SelectorScratch::Count(uint32_t id) {
  const size_t mask = slot_id.size() - 1;
  for (uint32_t s = Slot(id, mask);; s = static_cast<uint32_t>((s + 1) & mask)) {
    if (slot_id[s] == id) {
      ++slot_count[s];
      return;
    }
    if (slot_id[s] == ~0u) {
      slot_id[s] = id;
      slot_count[s] = 1;
      used_slots.push_back(s);
      found.push_back(id);
      return;
    }
  }
}

uint32_t SelectorScratch::CountOf(uint32_t id) const {
  const size_t mask = slot_id.size() - 1;
  for (uint32_t s = Slot(id, mask);; s = static_cast<uint32_t>((s + 1) & mask)) {
    if (slot_id[s] == id) return slot_count[s];
    if (slot_id[s] == ~0u) return 0;
  }
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
