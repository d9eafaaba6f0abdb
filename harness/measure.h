#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "datasets/dataset.h"
#include "engine/learner.h"

namespace sparsebench {

struct MeasureSettings {
  uint32_t epochs = 1;
  uint32_t batch = 256;          // the engine's, to space curve points by batches
  uint32_t evals_per_epoch = 0;  // curve points per epoch on the held-out sample; 0 = none
  uint32_t eval_sample = 2000;   // rows of the test set in that sample (fixed by seed)
  std::string metric = "p_at_1";
  double target = 0;             // time to target: first curve point with metric >= target
  uint32_t latency_samples = 0;  // single-row predictions timed; 0 = none
  bool progress = true;          // epoch lines on stderr
};

// Trains for settings.epochs, evaluates on the whole test set and measures what a result row
// reports: train seconds (curve evaluations excluded and reported apart), the curve
// [[seconds, epoch, metric], ...], time to target, P@k/accuracy, latency p50/p99 (us),
// throughput. Keys as in harness/README.md.
nlohmann::json TrainAndMeasure(Learner& learner, const Dataset& train, const Dataset& test,
                               const MeasureSettings& settings);

// The named metric ("p_at_1", ..., "accuracy") of top-5 predictions; accuracy falls back to
// P@1 for multi-label data.
double MetricValue(const Metrics& metrics, const std::string& name);

}  // namespace sparsebench
