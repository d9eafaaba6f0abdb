#pragma once

#include <memory>
#include <string>
#include <utility>

#include "engine/api/learner.h"
#include "engine/lsh/neuron_selector.h"
#include "engine/model/model_io.h"
#include "engine/model/network.h"
#include "engine/train/trainer.h"

namespace sparsebench {

// Everything a "sparse:..." spec string sets. Parse fills defaults that depend on the data
// (output sparsity) and Canonical prints every setting, so the string is the identity.
struct SparseConfig {
  uint32_t hidden = 128;
  double out_sparsity = -1;   // < 0: 1.0 for up to 1024 labels, else 0.005
  bool bf16_moments = false;  // the output layer's Adam moments in bf16
  bool bf16_weights = false;  // the output layer's weights in bf16 (stochastic rounding)
  double lr_decay = 1;        // the last batch runs at lr * lr_decay (linear over all batches)
  SelectorParams selector;
  RebuildSchedule rebuild;

  static SparseConfig Parse(const std::string& spec, const DataShape& shape);
  std::string Canonical() const;
  uint32_t ActiveTarget(uint32_t outputs) const;
};

// The LSH-sparse engine behind the Learner interface.
class SparseLearner : public Learner {
 public:
  SparseLearner(const SparseConfig& config, const DataShape& shape, const TrainOptions& options);
  // A trained model from a file: predicts, and can go on training (with fresh optimizer state).
  // DataError naming the file when it cannot be read or its spec and network disagree.
  SparseLearner(const std::string& model_path, const TrainOptions& options);
  // The same from a loaded model; `source` names it in errors.
  SparseLearner(SavedModel saved, const std::string& source, const TrainOptions& options);
  // Trained weights (e.g. a text model's), with fresh optimizer state.
  SparseLearner(const SparseConfig& config, Network network, const TrainOptions& options);
  ~SparseLearner() override;

  std::string spec() const override { return config_.Canonical(); }
  TrainSettings settings() const override;
  void Train(const Dataset& train, const PausePlan& plan) override;
  TopK Predict(const Dataset& data, uint32_t k) const override;
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override;
  TopK PredictRow(const SparseRow& row, uint32_t k) const;
  std::optional<std::vector<std::vector<uint32_t>>> ActiveSets(const Dataset& rows) const override;
  TopK PredictWithSelector(const Dataset& data, uint32_t k) const;
  void Save(const std::string& path) const override;
  size_t model_bytes() const override { return network_.bytes(); }
  const Network& network() const { return network_; }
  void set_learning_rate(float lr);
  // Trains one pass; pauses as `plan` asks, with epochs counted from `epoch_offset`.
  // False when the plan stopped training.
  bool TrainOneEpoch(const Dataset& train, const PausePlan& plan, double epoch_offset);
  // lr for the batch after `done` epochs of this Train call and `samples` trained in all: the
  // shared schedule (train_defaults.h), times the linear decay when lr_decay < 1.
  void ScheduleLearningRate(double done, uint64_t samples);

 private:
  std::string PrecisionText() const;
  SparseLearner(std::pair<SparseConfig, Network> loaded, const TrainOptions& options);
  void ResolveSelector();
  void MakeTrainer();
  void CheckFits(const Dataset& data) const;  // ConfigError when data has more features

  SparseConfig config_;
  TrainOptions options_;
  Network network_;
  std::unique_ptr<NeuronSelector> selector_;
  std::unique_ptr<Trainer> trainer_;
  uint64_t samples_trained_ = 0;
};

}  // namespace sparsebench
