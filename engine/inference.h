#pragma once

#include <cstdint>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/metrics.h"
#include "engine/network.h"
#include "engine/neuron_selector.h"

namespace sparsebench {

// Exact top-k over every output neuron: hidden activations for a block of rows, then
// ExactScorer (exact_scorer.h) scores the block against the whole output layer.
TopK PredictExact(const Network& network, const Dataset& data, uint32_t k, int threads);

// Exact top-k of one row on the calling thread; ConfigError for a feature beyond the input.
TopK PredictRowExact(const Network& network, const SparseRow& row, uint32_t k);

// Top-k among the neurons the selector returns for each row (no label forcing, every open
// place from the tables).
TopK PredictSparse(const Network& network, const NeuronSelector& selector, uint32_t active_target,
                   const Dataset& data, uint32_t k, int threads);

// The neurons the selector returns for each row (no labels forced), as training selects them.
std::vector<std::vector<uint32_t>> SelectActive(const Network& network, const NeuronSelector& selector,
                                                uint32_t active_target, const Dataset& data, int threads);

}  // namespace sparsebench
