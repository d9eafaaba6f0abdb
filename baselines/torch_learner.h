#pragma once

#include <map>
#include <memory>
#include <string>

#include "baselines/dense_spec.h"
#include "engine/api/learner.h"
#include "engine/model/network.h"

namespace sparsebench {

// The engine's model as a LibTorch user writes it: EmbeddingBag (sum, per-sample weights)
// for the sparse input, a hidden bias and ReLU, Linear, full softmax cross-entropy with the
// engine's 1/k multi-label target. embedding_grad=sparse (default): EmbeddingBag(sparse=true)
// updated by SparseAdam (PyTorch's algorithm, written in tensor ops since LibTorch 1.13's C++
// API has none) and torch::optim::Adam on the rest; embedding_grad=dense: torch::optim::Adam
// on everything. Starts from the engine's initial weights for the same seed.
// "torch:device=cuda" runs on a GPU when LibTorch has CUDA.
class TorchLearner : public Learner {
 public:
  TorchLearner(const std::string& spec, const DataShape& shape, const TrainOptions& options);
  ~TorchLearner() override;

  std::string spec() const override { return spec_.Canonical(); }
  TrainSettings settings() const override;
  void Train(const Dataset& train, const PausePlan& plan) override;
  TopK Predict(const Dataset& data, uint32_t k) const override;
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override;
  void Save(const std::string& path) const override;
  size_t model_bytes() const override;
  std::map<std::string, std::string> context() const override;
  // The current weights in the engine's layout (optimizer state left zero).
  Network ToNetwork() const;

 private:
  struct Model;
  void UseThreads(int threads) const;
  DenseSpec spec_;
  TrainOptions options_;
  NetworkShape shape_;
  uint64_t epoch_ = 0;
  uint64_t samples_trained_ = 0;
  std::unique_ptr<Model> model_;
};

}  // namespace sparsebench
