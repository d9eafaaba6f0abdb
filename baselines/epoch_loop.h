#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "datasets/dataset.h"
#include "engine/learner.h"

namespace sparsebench {

// One epoch in the engine's order: the rows of SeededPermutation(rows, MixSeed(seed, epoch))
// in mini-batches, rows without labels left out. train_batch gets a batch's rows and returns
// its summed loss. Only train_batch's time counts; the hook's does not.
EpochReport RunEpoch(const Dataset& data, uint64_t seed, uint64_t epoch, uint32_t batch,
                     const BatchHook& hook,
                     const std::function<double(std::span<const uint32_t>)>& train_batch);

}  // namespace sparsebench
