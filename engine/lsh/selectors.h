#pragma once

// The selector variants behind NeuronSelector, built by MakeNeuronSelector.
#include <memory>

#include "engine/lsh/neuron_selector.h"

namespace sparsebench {

std::unique_ptr<NeuronSelector> MakeLshSelector(const SelectorParams& params, uint32_t rows);
std::unique_ptr<NeuronSelector> MakeRandomSelector(const SelectorParams& params, uint32_t rows);

// Appends random ids not yet marked until active holds `target` (or every row), marking them,
// in runs of `run` consecutive ids (wrapping past the last row) from uniform random starts:
// every id is as likely as any other, and a batch's random rows lie in runs that stream
// through memory instead of costing a trip to DRAM each.
void PadWithRandom(uint32_t rows, uint32_t target, uint32_t run, SelectorScratch& scratch, Rng& rng,
                   std::vector<uint32_t>& active);

}  // namespace sparsebench
