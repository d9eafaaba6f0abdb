// The dense baselines are the engine's model: same initial weights, same batches, same loss,
// same optimizer, so their losses track the engine's with every output neuron active.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "baselines/blas_learner.h"
#include "engine/sparse_learner.h"
#include "engine/tests/test_util.h"
#ifdef SPARSEBENCH_HAVE_TORCH
#include <torch/cuda.h>

#include "baselines/torch_learner.h"
#endif

namespace sparsebench {
namespace {

constexpr uint32_t kRows = 48, kFeatures = 20, kLabels = 9;

TrainOptions OneThreadOneBatch() {
  TrainOptions options;
  options.batch = kRows;  // each epoch is one step over every row, so every feature is touched
  options.epochs = 1;
  options.lr = 0.01f;
  options.threads = 1;
  options.seed = 5;
  return options;
}

std::vector<std::unique_ptr<Learner>> DenseLearners(const TrainOptions& options) {
  const DataShape shape{kFeatures, kLabels};
  std::vector<std::unique_ptr<Learner>> learners;
  learners.push_back(std::make_unique<SparseLearner>(
      SparseConfig::Parse("sparse:hidden=16,out_sparsity=1", shape), shape, options));
  learners.push_back(std::make_unique<BlasLearner>("blas:hidden=16", shape, options));
#ifdef SPARSEBENCH_HAVE_TORCH
  learners.push_back(std::make_unique<TorchLearner>("torch:hidden=16", shape, options));
#endif
  return learners;
}

TEST(Fairness, DenseBaselinesTrackTheEngineForTwentySteps) {
  const Dataset data = testing::RandomDataset(kRows, kFeatures, kLabels, 11);
  auto learners = DenseLearners(OneThreadOneBatch());
  ASSERT_GE(learners.size(), 2u);
  double first = 0, last = 0;
  for (int step = 1; step <= 20; ++step) {
    const double reference = testing::TrainReportingLastEpoch(*learners[0], data).mean_loss;
    for (size_t i = 1; i < learners.size(); ++i) {
      const double loss = testing::TrainReportingLastEpoch(*learners[i], data).mean_loss;
      EXPECT_NEAR(loss, reference, 1e-4 * reference) << learners[i]->spec() << " at step " << step;
    }
    (step == 1 ? first : last) = reference;
  }
  EXPECT_LT(last, 0.9 * first);  // the steps did learn something
}

TEST(Fairness, SameWeightsGiveTheSamePredictionsAndMetrics) {
  const Dataset data = testing::RandomDataset(200, kFeatures, kLabels, 12);
  auto learners = DenseLearners(OneThreadOneBatch());
  const TopK reference = learners[0]->Predict(data, 5);
  const Metrics expected = ComputeMetrics(reference, data);
  for (size_t i = 1; i < learners.size(); ++i) {
    const TopK top = learners[i]->Predict(data, 5);
    EXPECT_EQ(top.ids, reference.ids) << learners[i]->spec();
    const Metrics m = ComputeMetrics(top, data);
    EXPECT_EQ(m.p_at_1, expected.p_at_1);
    EXPECT_EQ(m.p_at_3, expected.p_at_3);
    EXPECT_EQ(m.p_at_5, expected.p_at_5);
  }
}

TEST(Fairness, BlasCountsItsGemmWork) {
  const Dataset data = testing::RandomDataset(kRows, kFeatures, kLabels, 13);
  BlasLearner blas("blas:hidden=16", {kFeatures, kLabels}, OneThreadOneBatch());
  const Progress report = testing::TrainReportingLastEpoch(blas, data);
  // Forward, weight gradient, hidden gradient: 3 products of 2 * rows * labels * hidden flops.
  EXPECT_DOUBLE_EQ(blas.gemm_totals().flops, 3.0 * 2 * kRows * kLabels * 16);
  EXPECT_GT(report.details.at("seconds_gemm"), 0.0);
}

#ifdef SPARSEBENCH_HAVE_TORCH
TEST(Fairness, TorchStartsFromTheEnginesInitialWeights) {
  const TrainOptions options = OneThreadOneBatch();
  TorchLearner torch_learner("torch:hidden=16", {kFeatures, kLabels}, options);
  const Network engine(NetworkShape{kFeatures, 16, kLabels}, options.seed);
  const Network copied = torch_learner.ToNetwork();
  EXPECT_EQ(copied.input.w, engine.input.w);
  EXPECT_EQ(copied.output.w, engine.output.w);
  EXPECT_EQ(copied.output.bias, engine.output.bias);
}

TEST(Fairness, TorchRejectsCudaWithoutAGpu) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this LibTorch has a GPU";
  EXPECT_THROW(TorchLearner("torch:device=cuda", {kFeatures, kLabels}, OneThreadOneBatch()), std::exception);
}
#endif

TEST(Fairness, DenseSpecsAreCheckedAndCanonical) {
  EXPECT_EQ(BlasLearner("blas", {kFeatures, kLabels}, OneThreadOneBatch()).spec(), "blas:hidden=128");
  EXPECT_THROW(BlasLearner("blas:hiden=4", {kFeatures, kLabels}, OneThreadOneBatch()), std::exception);
}

}  // namespace
}  // namespace sparsebench
