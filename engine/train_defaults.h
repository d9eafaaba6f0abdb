#pragma once

#include <cstdint>

#include "engine/learner.h"

namespace sparsebench {

// The training defaults of the model that `sparse`, `blas` and `torch` share, chosen by the
// measured sweep in engine/README.md ("Defaults").
inline constexpr uint32_t kDefaultBatch = 256;
inline constexpr float kDefaultLr = 0.005f;
inline constexpr uint32_t kDefaultEpochs = 1;

// `options` with every unset (zero) setting replaced by the shared default.
inline TrainOptions WithDefaults(TrainOptions options) {
  if (options.batch == 0) options.batch = kDefaultBatch;
  if (!(options.lr > 0)) options.lr = kDefaultLr;
  if (options.epochs == 0) options.epochs = kDefaultEpochs;
  return options;
}

}  // namespace sparsebench
