#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/metrics.h"

namespace sparsebench {

// How a learner trains. Zero means "the engine's own default", which the learner resolves
// and reports back through Learner::settings().
struct TrainOptions {
  uint32_t batch = 0;
  double lr = 0;
  // lr holds for this many samples, then halves every this many more (0: constant).
  std::optional<uint64_t> lr_half_life;
  uint32_t epochs = 0;
  int threads = 1;
  uint64_t seed = 1;
};

struct DataShape {
  uint32_t features = 0;
  uint32_t labels = 0;
};

// The resolved training settings of a learner, as results.csv prints them.
struct TrainSettings {
  uint32_t batch = 0;
  double lr = 0;
  uint32_t epochs = 0;    // passes over the data (for early-stopping engines: the most it may run)
  std::string optimizer;  // the update rule, e.g. "adam (lazy: touched rows only)"
  // The number formats it trains in, e.g. "fp32" or "bf16 autocast: products in bf16 (oneDNN),
  // weights, optimizer and loss in fp32".
  std::string precision = "fp32";
};

// Where training stands when a learner pauses for the harness.
struct Progress {
  double epoch = 0;        // passes done, fractional; never decreases within one Train call
  uint64_t samples = 0;    // training samples processed so far in this epoch
  double mean_loss = NAN;  // over the samples since the previous pause, when the engine knows it
  bool epoch_end = false;  // the pause ends an epoch (its details are complete)
  std::map<std::string, double> details;  // engine figures of the epoch that just ended
};

// The harness owns the training clock: it stops its clock while `pause` runs (evaluations,
// progress lines) and starts it again when it returns. A learner calls `pause` about
// `per_epoch` times per epoch, evenly spaced, the last one at the end of each epoch (with
// per_epoch = 0, only at the end of each epoch). After each pause it asks `stop`: true ends
// Train there, mid-epoch or not, with the model as it is (the harness's training budget).
struct PausePlan {
  PausePlan() = default;
  PausePlan(uint32_t per_epoch, std::function<void(const Progress&)> pause,
            std::function<bool()> stop = {})
      : per_epoch(per_epoch), pause(std::move(pause)), stop(std::move(stop)) {}

  uint32_t per_epoch = 0;
  std::function<void(const Progress&)> pause;
  std::function<bool()> stop;
  // Pauses; false when training must end here.
  [[nodiscard]] bool operator()(const Progress& p) const {
    if (pause) pause(p);
    return !(stop && stop());
  }
};

// The positions (rows done within an epoch of `rows` rows, trained in batches of `batch`) after
// which a learner pauses for a plan of `per_epoch` pauses an epoch, the epoch's end left out (it
// is always a pause): after every max(1, batches / per_epoch) batches.
inline std::vector<uint64_t> PausePositions(uint64_t rows, uint64_t batch, uint32_t per_epoch) {
  std::vector<uint64_t> positions;
  if (per_epoch == 0 || rows == 0) return positions;
  batch = batch == 0 ? 1 : batch;
  const uint64_t batches = (rows + batch - 1) / batch;
  const uint64_t every = batches / per_epoch == 0 ? 1 : batches / per_epoch;
  for (uint64_t done = every; done < batches; done += every) positions.push_back(done * batch);
  return positions;
}

// What every engine offers the harness: our sparse engine and each dense baseline. The
// harness asks every learner the same questions and times them with one clock.
class Learner {
 public:
  virtual ~Learner() = default;
  // The canonical spec string: the engine's identity in results (data-dependent choices are
  // resolved once Train has started).
  virtual std::string spec() const = 0;
  virtual TrainSettings settings() const = 0;
  // Called once, off the clock, between construction and Train, with the training data as
  // loaded: an engine that reads its own input format (fastText's text file) converts the data
  // into it here, as its users would have it on disk already. Most engines need nothing.
  virtual void Stage(const Dataset& train) {}
  // Trains settings().epochs passes over `train` (engines that can go on training continue
  // from where they are; fastText starts over). Everything the engine needs to train happens
  // inside this call: featurizing text, building dictionaries and hash tables.
  virtual void Train(const Dataset& train, const PausePlan& plan) = 0;
  // Top-k over all outputs (exact) for every row, k >= 5.
  virtual TopK Predict(const Dataset& data, uint32_t k) const = 0;
  // Row `row` of `data` on the calling thread, as a service answers one request: from its
  // raw text for engines that read text, else from its features.
  virtual TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const = 0;
  // Engines that compute a subset of their outputs: the neurons they would compute for each
  // row (no labels forced). nullopt: every output, always.
  virtual std::optional<std::vector<std::vector<uint32_t>>> ActiveSets(const Dataset& rows) const {
    return std::nullopt;
  }
  virtual void Save(const std::string& path) const = 0;
  // Called once, off the clock, after the harness's last request: an engine that runs as
  // another process ends it here, and throws if it misbehaves doing so. Most need nothing.
  virtual void Finish() {}
  virtual size_t model_bytes() const = 0;
  // Free-form facts for the result's context (BLAS backend, thread settings, ...).
  virtual std::map<std::string, std::string> context() const { return {}; }
};

}  // namespace sparsebench
