#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "baselines/dense_spec.h"
#include "engine/api/learner.h"
#include "engine/common/aligned.h"
#include "engine/model/network.h"

namespace sparsebench {

// The engine's model trained dense, by hand on OpenBLAS: gather for the sparse input layer,
// cblas_sgemm for the output layer's forward pass and both backward products, Adam over the
// output layer and hidden bias every step and, on the input table, either over the rows of
// the batch's features only (adam=lazy, the default, as the engine does) or over every row
// (adam=dense). The dense speed limit of the machine.
class BlasLearner : public Learner {
 public:
  BlasLearner(const std::string& spec, const DataShape& shape, const TrainOptions& options);

  std::string spec() const override { return spec_.Canonical(); }
  TrainSettings settings() const override;
  void Train(const Dataset& train, const PausePlan& plan) override;
  TopK Predict(const Dataset& data, uint32_t k) const override;
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override;
  void Save(const std::string& path) const override;
  size_t model_bytes() const override { return network_.bytes(); }
  std::map<std::string, std::string> context() const override;
  const Network& network() const { return network_; }

  struct GemmTotals {
    double seconds = 0;
    double flops = 0;
  };
  const GemmTotals& gemm_totals() const { return gemm_; }

 private:
  double TrainBatch(const Dataset& data, std::span<const uint32_t> rows);
  void Forward(const Dataset& data, std::span<const uint32_t> rows);
  double LossGradient(const Dataset& data, std::span<const uint32_t> rows);
  void Backward(const Dataset& data, std::span<const uint32_t> rows);
  void Update(const Dataset& data, std::span<const uint32_t> rows);
  // C = alpha * op(A) * op(B) + beta * C, row-major, timed into gemm_.
  void Gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, const float* a,
            const float* b, float beta, float* c);

  DenseSpec spec_;
  TrainOptions options_;
  Network network_;
  uint64_t epoch_ = 0;
  uint64_t step_ = 0;
  uint64_t samples_trained_ = 0;
  FloatVector hidden_, hidden_grad_, logits_;
  FloatVector input_grad_, output_grad_, output_bias_grad_, hidden_bias_grad_;
  GemmTotals gemm_;
  // adam=lazy: the input rows the batch touched, found with a per-row stamp.
  std::vector<uint32_t> row_stamp_, touched_;
  uint32_t stamp_ = 0;
};

}  // namespace sparsebench
