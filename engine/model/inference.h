#pragma once

#include <cstdint>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/metrics.h"
#include "engine/model/network.h"

namespace sparsebench {

// Exact top-k over every output neuron: hidden activations for a block of rows, then
// ExactScorer (exact_scorer.h) scores the block against the whole output layer.
TopK PredictExact(const Network& network, const Dataset& data, uint32_t k, int threads);

// Exact top-k of one row on the calling thread; ConfigError for a feature beyond the input.
TopK PredictRowExact(const Network& network, const SparseRow& row, uint32_t k);

}  // namespace sparsebench
