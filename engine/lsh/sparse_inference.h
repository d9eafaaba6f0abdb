#pragma once

#include <cstdint>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/metrics.h"
#include "engine/lsh/neuron_selector.h"
#include "engine/model/network.h"

namespace sparsebench {

// Top-k among the neurons the selector returns for each row (no label forcing, every open
// place from the tables).
TopK PredictSparse(const Network& network, const NeuronSelector& selector, uint32_t active_target,
                   const Dataset& data, uint32_t k, int threads);

// The neurons the selector returns for each row (no labels forced), as training selects them.
std::vector<std::vector<uint32_t>> SelectActive(const Network& network,
                                                const NeuronSelector& selector,
                                                uint32_t active_target, const Dataset& data,
                                                int threads);

}  // namespace sparsebench
