#pragma once

#include <cstdint>
#include <vector>

#include "datasets/dataset.h"
#include "engine/lsh/neuron_selector.h"
#include "engine/model/network.h"
#include "engine/train/output_batch.h"
#include "engine/train/row_gradients.h"

namespace sparsebench {

// When hash tables are rebuilt from the current weights: first after `first` batches, then
// at gaps that grow by `growth` (SLIDE: 50 and 1.5) up to `max_gap`; growth 1 keeps a fixed
// gap (BOLT). first = 0 (auto) rebuilds whenever the output neurons have received about
// kUpdatesPerRebuild gradient updates each on average since the last rebuild (counted, not
// predicted), so the gap in batches follows layer width / (batch x active neurons) and the
// tables are equally stale at any size.
// Every `rehash` batches (0 = never) the hash functions are drawn anew first.
struct RebuildSchedule {
  static constexpr double kUpdatesPerRebuild = 6.0;
  uint32_t first = 0;
  double growth = 1.0;
  uint32_t max_gap = 1000;
  uint32_t rehash = 0;
};

struct TrainerConfig {
  uint32_t batch = 256;
  AdamConfig adam;
  int threads = 1;
  uint64_t seed = 1;
  uint32_t active_target = 0;  // output neurons per sample; 0 or >= output_dim means dense
  RebuildSchedule rebuild;
};

// Seconds spent in each phase, for profiles and the closing notes.
struct PhaseTimes {
  double samples = 0;  // selection and forward of every sample (dense output: and backward)
  double update = 0;   // backward and Adam step (grouping the input layer's gradients by row)
  double rebuild = 0;  // hashing weights and rebuilding tables
};

// Sums over an epoch so far (TrainEpoch divides loss and active by samples at the end).
struct EpochStats {
  uint32_t epoch = 0;
  uint64_t samples = 0;
  double mean_loss = 0;
  double mean_active = 0;   // output neurons per sample
  // Distinct rows that received gradient in a batch, summed over batches (dense output: every
  // output row each batch).
  uint64_t output_rows_updated = 0;
  uint64_t input_rows_updated = 0;
  uint32_t rebuilds = 0;
  // Exact counts of the work done (deterministic at a seed, whatever the threads).
  uint64_t active_neurons = 0;  // output neurons scored, summed over samples
  uint64_t input_nonzeros = 0;  // input features read, summed over samples
  uint64_t buckets_probed = 0;  // hash-table buckets read by the selections
  uint64_t bucket_ids_read = 0;  // neuron ids in those buckets: follows what the tables hold
  // Multiply-adds of the model: per input nonzero, hidden_dim each in the forward pass and the
  // input weights' gradient; per active output, hidden_dim each in its score, the hidden
  // gradient and its weights' gradient.
  uint64_t multiply_adds(uint32_t hidden_dim) const {
    return uint64_t{hidden_dim} * (2 * input_nonzeros + 3 * active_neurons);
  }
  PhaseTimes phases;
};

// Mini-batch training: each batch's samples are split across threads that read the shared
// weights without locks and write only their own workspace; gradients are then applied per
// batch by a parallel sparse Adam over the rows that received them. Every random choice is
// seeded by (seed, epoch, sample), so results do not depend on the thread count.
class Trainer {
 public:
  // `selector` may be null when the output layer is dense.
  Trainer(Network& network, NeuronSelector* selector, const TrainerConfig& config);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // One pass over `data` in a seeded order; calls on_batch(batches_done, stats_so_far) after
  // each batch and ends the pass early when it returns false. The hash tables are first built
  // by the first batch ever trained.
  template <typename OnBatch>
  EpochStats TrainEpoch(const Dataset& data, OnBatch&& on_batch);
  void set_learning_rate(float lr) { config_.adam.lr = lr; }

  struct ThreadState;

 private:
  void BeginEpoch(const Dataset& data);
  void TrainBatch(const Dataset& data, size_t begin, size_t end, EpochStats& stats);
  void TrainSample(const Dataset& data, uint32_t row, uint32_t slot, ThreadState& state);
  // Sparse output: scores the batch's active rows and takes each sample's softmax.
  void ForwardOutput(size_t batch_size, EpochStats& stats);
  void ApplyUpdates(size_t batch_size);
  void MaybeRebuild(EpochStats& stats);
  void Rebuild();
  bool built_ = false;

  Network& net_;
  NeuronSelector* selector_;
  TrainerConfig config_;
  bool dense_;
  uint32_t epoch_ = 0;
  uint64_t step_ = 0;
  uint64_t next_rebuild_;
  double rebuild_gap_;
  uint64_t updates_since_rebuild_ = 0;
  uint64_t last_rehash_ = 0;  // step of the last new draw of hash functions
  std::vector<uint32_t> order_;
  std::vector<uint32_t> all_outputs_;
  FloatVector batch_hidden_, batch_hidden_grad_;
  FloatVector batch_output_grads_;   // dense only: each slot's gradient over every output
  std::vector<float> batch_losses_;  // sparse only: each slot's loss,
  std::vector<uint32_t> batch_active_, batch_labels_;  // active rows and labels
  std::vector<ThreadState> states_;
  OutputBatch output_batch_;  // sparse only
  RowGradients input_grads_;
};

template <typename OnBatch>
EpochStats Trainer::TrainEpoch(const Dataset& data, OnBatch&& on_batch) {
  BeginEpoch(data);
  EpochStats stats;
  stats.epoch = epoch_;
  uint64_t done = 0;
  for (size_t begin = 0; begin < data.rows(); begin += config_.batch) {
    TrainBatch(data, begin, std::min(data.rows(), begin + config_.batch), stats);
    if (!on_batch(++done, stats)) break;
  }
  if (stats.samples > 0) {
    stats.mean_loss /= static_cast<double>(stats.samples);
    stats.mean_active /= static_cast<double>(stats.samples);
  }
  return stats;
}

}  // namespace sparsebench
