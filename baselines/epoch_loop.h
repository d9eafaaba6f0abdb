#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>

#include "datasets/dataset.h"
#include "engine/api/learner.h"

namespace sparsebench {

// One epoch in the engine's order: the rows of SeededPermutation(rows, MixSeed(seed, epoch))
// in mini-batches, rows without labels left out. train_batch gets a batch's rows and returns
// its summed loss. Pauses as `plan` asks, with epochs counted from `epoch_offset`; the epoch's
// last pause carries `details` (engine figures, may be empty). False when the plan stopped
// training.
bool RunEpoch(const Dataset& data, uint64_t seed, uint64_t epoch, uint32_t batch,
              const PausePlan& plan, double epoch_offset,
              const std::function<double(std::span<const uint32_t>)>& train_batch,
              const std::function<std::map<std::string, double>()>& details = {});

}  // namespace sparsebench
