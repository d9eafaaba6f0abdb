#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "engine/api/learner.h"

namespace sparsebench {

// The training defaults of the model that `sparse`, `blas` and `torch` share, chosen by the
// batch and learning-rate sweeps in docs/engine-notes.md.
inline constexpr uint32_t kDefaultBatch = 256;
inline constexpr double kDefaultLr = 0.005;
inline constexpr uint32_t kDefaultEpochs = 1;
// The learning rate holds for this many samples, then halves every this many more
// (engine/README.md, "Learning-rate schedule"): one epoch at full rate on amazon670k, none on its
// 0.1 scale.
inline constexpr uint64_t kDefaultLrHalfLife = 500'000;

// `options` with every unset (zero) setting replaced by the shared default.
inline TrainOptions WithDefaults(TrainOptions options) {
  if (options.batch == 0) options.batch = kDefaultBatch;
  if (!(options.lr > 0)) options.lr = kDefaultLr;
  if (options.epochs == 0) options.epochs = kDefaultEpochs;
  if (!options.lr_half_life) options.lr_half_life = kDefaultLrHalfLife;
  return options;
}

// The rate of the batch that follows `samples` trained samples, for every engine that shares
// the model's optimizer rule (`options` with defaults applied).
inline float ScheduledLr(const TrainOptions& options, uint64_t samples) {
  const uint64_t half_life = options.lr_half_life.value_or(0);
  if (half_life == 0 || samples <= half_life) return options.lr;
  const double halvings = static_cast<double>(samples - half_life) / static_cast<double>(half_life);
  return static_cast<float>(options.lr * std::exp2(-halvings));
}

// The schedule in words, for the optimizer column of results.
inline std::string ScheduleText(const TrainOptions& options) {
  const uint64_t half_life = options.lr_half_life.value_or(0);
  if (half_life == 0) return "constant lr";
  return "lr holds for " + std::to_string(half_life) + " samples, then halves every " +
         std::to_string(half_life);
}

}  // namespace sparsebench
