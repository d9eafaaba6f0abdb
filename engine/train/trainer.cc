#include "engine/train/trainer.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <numeric>
#include <utility>

#include "datasets/random.h"
#include "engine/common/memory_limit.h"
#include "engine/common/vector_ops.h"
#include "engine/train/sample_pass.h"

namespace sparsebench {

// A thread's workspace (fastText's Model::State): sized by the layers, never by the batch.
struct Trainer::ThreadState {
  std::vector<uint32_t> active;
  std::vector<float> output_grads;
  SelectorScratch selector;
  std::vector<std::vector<Contribution>> output_contributions;  // per part of the output rows
  std::vector<Contribution> input_contributions;
  double loss = 0;
  uint64_t active_total = 0;
  uint64_t input_nonzeros = 0;
  uint64_t samples = 0;
};

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

Trainer::Trainer(Network& network, NeuronSelector* selector, const TrainerConfig& config)
    : net_(network),
      selector_(selector),
      config_(config),
      dense_(selector == nullptr || config.active_target == 0 ||
             config.active_target >= network.shape.output_dim),
      next_rebuild_(0),
      rebuild_gap_(0),
      batch_hidden_(size_t{config.batch} * network.shape.hidden_dim),
      batch_hidden_grad_(size_t{config.batch} * network.shape.hidden_dim),
      batch_active_(config.batch),
      batch_labels_(config.batch),
      states_(static_cast<size_t>(std::max(1, config.threads))),
      output_batch_(network.shape.output_dim, static_cast<uint32_t>(std::max(1, config.threads))),
      input_grads_(network.shape.input_dim) {
  assert(config.batch > 0);
  if (dense_) {
    all_outputs_.resize(network.shape.output_dim);
    std::iota(all_outputs_.begin(), all_outputs_.end(), 0u);
    const size_t grads = size_t{config.batch} * network.shape.output_dim;
    CheckFitsInMemory(grads * sizeof(float),
                      "a dense batch's output gradients (batch x outputs floats)");
    batch_output_grads_.resize(grads);
    return;
  }
  rebuild_gap_ = config.rebuild.first;
  next_rebuild_ = config.rebuild.first;
}

Trainer::~Trainer() = default;

void Trainer::BeginEpoch(const Dataset& data) {
  ++epoch_;
  order_ = SeededPermutation(data.rows(), MixSeed(config_.seed, epoch_));
}

void Trainer::TrainBatch(const Dataset& data, size_t begin, size_t end, EpochStats& stats) {
  if (!dense_ && !built_) {
    const auto build_start = Clock::now();
    Rebuild();
    stats.phases.rebuild += Since(build_start);
  }
  const auto start = Clock::now();
  const int threads = static_cast<int>(states_.size());
  const auto count = static_cast<int64_t>(end - begin);
  for (ThreadState& state : states_) {  // also those of threads the runtime may not start
    state.output_contributions.resize(output_batch_.parts());
    for (auto& part : state.output_contributions) part.clear();
    state.input_contributions.clear();
  }
#pragma omp parallel num_threads(threads)
  {
    ThreadState& state = states_[static_cast<size_t>(omp_get_thread_num())];
    // Contiguous chunks in thread order keep gradient sums in sample order.
#pragma omp for schedule(static)
    for (int64_t i = 0; i < count; ++i) {
      TrainSample(data, order_[begin + static_cast<size_t>(i)], static_cast<uint32_t>(i), state);
    }
  }
  if (!dense_) ForwardOutput(end - begin, stats);
  stats.phases.samples += Since(start);
  const auto update_start = Clock::now();
  ApplyUpdates(end - begin);
  stats.phases.update += Since(update_start);
  stats.output_rows_updated += dense_ ? net_.shape.output_dim : output_batch_.unique_rows();
  stats.input_rows_updated += input_grads_.unique_rows();
  for (ThreadState& s : states_) {
    stats.mean_loss += s.loss;
    stats.mean_active += static_cast<double>(s.active_total);
    stats.active_neurons += s.active_total;
    stats.input_nonzeros += s.input_nonzeros;
    stats.buckets_probed += std::exchange(s.selector.buckets_probed, 0);
    stats.bucket_ids_read += std::exchange(s.selector.bucket_ids_read, 0);
    updates_since_rebuild_ += s.active_total;
    stats.samples += s.samples;
    s.loss = 0;
    s.active_total = s.input_nonzeros = s.samples = 0;
  }
  MaybeRebuild(stats);
}

void Trainer::TrainSample(const Dataset& data, uint32_t row, uint32_t slot, ThreadState& state) {
  const SparseRow sample = data.row(row);
  const uint32_t h_dim = net_.shape.hidden_dim;
  float* hidden = batch_hidden_.data() + size_t{slot} * h_dim;
  float* hidden_grad = batch_hidden_grad_.data() + size_t{slot} * h_dim;
  std::fill(hidden_grad, hidden_grad + h_dim, 0.0f);
  const size_t outputs = net_.shape.output_dim;
  float* output_grads = dense_ ? batch_output_grads_.data() + slot * outputs : nullptr;
  if (!dense_) batch_active_[slot] = batch_labels_[slot] = 0;
  if (sample.labels.empty()) {  // nothing to learn from a row without labels
    if (dense_) std::fill(output_grads, output_grads + outputs, 0.0f);
    return;
  }
  net_.Hidden(sample.features, sample.values, hidden);

  std::span<const uint32_t> active = all_outputs_;
  if (!dense_) {
    Rng rng(MixSeed(config_.seed, (uint64_t{epoch_} << 40) ^ row));
    selector_->Select(std::span<const float>(hidden, h_dim), sample.labels, config_.active_target,
                      state.selector, rng, state.active);
    active = state.active;
  }
  if (dense_) {
    state.loss +=
        ForwardBackward(net_, sample, active, false, hidden, hidden_grad, state.output_grads);
    std::copy(state.output_grads.begin(), state.output_grads.end(), output_grads);
  } else {
    // Selectors place the labels first; OutputBatch scores and backpropagates the batch.
    for (size_t a = 0; a < active.size(); ++a) {
      state.output_contributions[output_batch_.PartOf(active[a])].push_back(
          {active[a], slot, static_cast<float>(a)});
    }
    batch_active_[slot] = static_cast<uint32_t>(active.size());
    batch_labels_[slot] = static_cast<uint32_t>(sample.labels.size());
  }
  for (size_t i = 0; i < sample.features.size(); ++i) {
    state.input_contributions.push_back({sample.features[i], slot, sample.values[i]});
  }
  state.active_total += active.size();
  state.input_nonzeros += sample.features.size();
  ++state.samples;
}

void Trainer::ForwardOutput(size_t batch_size, EpochStats& stats) {
  std::vector<const std::vector<Contribution>*> outputs;
  for (const ThreadState& s : states_) {
    for (const auto& part : s.output_contributions) outputs.push_back(&part);
  }
  batch_losses_.resize(batch_size);
  output_batch_.Forward(outputs, std::span(batch_active_).first(batch_size),
                        std::span(batch_labels_).first(batch_size), net_.output,
                        batch_hidden_.data(), static_cast<int>(states_.size()),
                        batch_losses_.data());
  for (float loss : batch_losses_) stats.mean_loss += loss;
}

void Trainer::ApplyUpdates(size_t batch_size) {
  const AdamStep step(config_.adam, ++step_);
  const int threads = static_cast<int>(states_.size());
  std::vector<const std::vector<Contribution>*> inputs;
  for (const ThreadState& s : states_) inputs.push_back(&s.input_contributions);
  if (dense_) {
    ApplyDenseAdam(net_.output, batch_output_grads_.data(), batch_size, batch_hidden_.data(), step,
                   threads);
  } else {
    output_batch_.Backward(net_.output, batch_hidden_.data(), step, threads,
                           batch_hidden_grad_.data());
  }
  input_grads_.Group(inputs);
  input_grads_.ApplyAdam(net_.input, batch_hidden_grad_.data(), /*row_bias=*/false, step, threads);
  // The hidden bias's gradient, summed in sample order.
  const uint32_t h_dim = net_.shape.hidden_dim;
  FloatVector bias_grad(h_dim, 0.0f);
  for (size_t slot = 0; slot < batch_size; ++slot) {
    Axpy(1.0f, batch_hidden_grad_.data() + slot * h_dim, bias_grad.data(), h_dim);
  }
  step.Apply(bias_grad.data(), net_.input.bias.data(), net_.input.bias_m.data(),
             net_.input.bias_v.data(), h_dim);
}

void Trainer::MaybeRebuild(EpochStats& stats) {
  if (dense_) return;
  const RebuildSchedule& s = config_.rebuild;
  const bool automatic = s.first == 0;
  const double due_updates = RebuildSchedule::kUpdatesPerRebuild * net_.shape.output_dim;
  // New hash functions need new tables: a due rehash forces the rebuild.
  const bool rehash = s.rehash > 0 && step_ - last_rehash_ >= s.rehash;
  if (!rehash && (automatic ? static_cast<double>(updates_since_rebuild_) < due_updates
                            : step_ < next_rebuild_))
    return;
  const auto start = Clock::now();
  updates_since_rebuild_ = 0;
  if (rehash) {
    selector_->Rehash(MixSeed(config_.seed, step_));
    last_rehash_ = step_;
  }
  Rebuild();
  rebuild_gap_ = std::min<double>(rebuild_gap_ * std::max(1.0, s.growth), std::max(1u, s.max_gap));
  next_rebuild_ = step_ + static_cast<uint64_t>(std::max(1.0, rebuild_gap_));
  stats.phases.rebuild += Since(start);
  ++stats.rebuilds;
}

void Trainer::Rebuild() {
  built_ = true;
  selector_->RebuildFrom(net_.output, static_cast<int>(states_.size()));
}

}  // namespace sparsebench
