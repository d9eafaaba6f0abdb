#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "datasets/dataset.h"
#include "datasets/featurizer.h"
#include "datasets/metrics.h"
#include "engine/api/learner.h"
#include "harness/record/cell_result.h"

namespace sparsebench {

struct MeasureSettings {
  uint32_t evals_per_epoch = 0;  // pauses per epoch (curve points on the held-out sample); 0 = none
  // A pause makes a curve point only when this many training seconds have passed since the
  // last one (0: every pause); epoch ends and the budget's stop always make one.
  double eval_every_seconds = 0;
  // Training stops at the first pause at or after this many training seconds (0: no budget).
  double train_budget_seconds = 0;
  // The plateau rule: `holdout` of the training rows (seeded, the same for every engine) are
  // kept out of training and scored at each epoch's end, off the clock; training stops once
  // `patience` epochs have passed without a new best there (0: no rule, the engine's epochs).
  double holdout = 0;
  uint32_t patience = 0;
  double min_improvement = 0;    // a new best must beat the old by more than this (metric units)
  uint32_t eval_sample = 2000;   // rows of the test set in that sample (fixed by seed)
  uint32_t recall_sample = 1000; // training rows whose selection is probed (sparse engines)
  std::string metric = "p_at_1";
  double target = NAN;           // time to target: first curve point with metric >= target
  uint32_t latency_samples = 0;  // single-row predictions timed; 0 = none
  bool progress = true;          // epoch lines on stderr
  int threads = 1;               // the run's threads, for featurizing training text
};

// Builds a learner for data of a shape. Runs on the clock (initialising a model is training).
using LearnerFactory = std::function<std::unique_ptr<Learner>(const DataShape& shape)>;

struct Measurement {
  CellResult result;  // what the child measures: no identity, machine or price
  std::unique_ptr<Learner> learner;
};

// The one clock every engine is timed by. It runs from the first touch of the loaded training
// data to the end of Train: featurizing raw training text with `featurizer` (engines that do
// not read text), `make`, then Train. It stops only for the learner's Stage and while the
// learner pauses for the harness (curve points, selection probes, progress lines; reported
// apart as curve_eval_seconds). A budget ends training at a pause (the row says
// "stopped_by":"budget"), and so does the plateau rule ("stopped_by":"plateau"). Then the final
// evaluation on the whole test set (featurized
// beforehand by the caller), latency, and the figures of a result row.
Measurement TrainAndMeasure(const LearnerFactory& make, Dataset& train, const Dataset& test,
                            const MeasureSettings& settings, const Featurizer* featurizer = nullptr);

// The named metric ("p_at_1", ..., "accuracy") of top-5 predictions; accuracy falls back to
// P@1 for multi-label data.
double MetricValue(const Metrics& metrics, const std::string& name);

}  // namespace sparsebench
