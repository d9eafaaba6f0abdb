#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "datasets/dataset.h"
#include "engine/metrics.h"

namespace sparsebench {

struct TrainOptions {
  uint32_t batch = 256;
  float lr = 1e-3f;
  int threads = 1;
  uint64_t seed = 1;
  bool lr_from_user = false;  // engines with their own default learning rate keep it otherwise
  uint32_t passes = 0;        // > 0: the user's pass count, for engines that run their own
};

struct DataShape {
  uint32_t features = 0;
  uint32_t labels = 0;
};

struct EpochReport {
  uint64_t samples = 0;
  double seconds = 0;    // training only; the hook's time is excluded
  double mean_loss = 0;
  std::map<std::string, double> details;  // engine-specific figures (phases, active set size)
};

// Called after every `interval` batches with (batches done, training seconds so far in
// this epoch); whatever it does (evaluation, progress) is not counted as training time.
struct BatchHook {
  uint64_t interval = 0;  // 0 = never
  std::function<void(uint64_t batches, double train_seconds)> call;
};

// What every engine offers the harness: our sparse engine and each dense baseline.
class Learner {
 public:
  virtual ~Learner() = default;
  // The canonical spec string: the engine's identity in results.
  virtual std::string spec() const = 0;
  virtual EpochReport TrainEpoch(const Dataset& train, const BatchHook& hook) = 0;
  // Top-k over all outputs (exact), k >= 5.
  virtual TopK Predict(const Dataset& data, uint32_t k) const = 0;
  // One row on the calling thread, as a service answers a request (latency). The default
  // goes through Predict; false from measures_latency() means one row cannot be timed.
  virtual TopK PredictOne(const SparseRow& row, uint32_t k) const;
  virtual bool measures_latency() const { return true; }
  // Engines that featurize raw text themselves (Dataset::text) answer a request's text.
  virtual bool reads_text() const { return false; }
  virtual TopK PredictText(std::string_view text, uint32_t k) const;
  virtual void Save(const std::string& path) const = 0;
  virtual size_t model_bytes() const = 0;
  // Free-form facts for the result's context (BLAS backend, thread settings, ...).
  virtual std::map<std::string, std::string> context() const { return {}; }
  // True for engines that make all their passes in one TrainEpoch call (fastText's -epoch).
  virtual bool runs_own_epochs() const { return false; }
};

}  // namespace sparsebench
