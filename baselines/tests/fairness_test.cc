// The dense baselines are the engine's model: same initial weights, same batches, same loss,
// same optimizer, so their losses track the engine's with every output neuron active. With
// every feature in every batch, lazy and dense Adam on the input table are the same update;
// on batches that touch only some features, the lazy (blas:adam=lazy) and sparse
// (torch:embedding_grad=sparse) variants still track the engine, whose Adam is lazy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "baselines/blas_learner.h"
#include "engine/api/tests/test_util.h"
#include "engine/api/train_defaults.h"
#include "engine/train/sparse_learner.h"
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

// The engine with every output neuron active first, then the baselines: both input-table
// updates when `variants` is "all", else only the lazy/sparse ones or only the dense ones.
std::vector<std::unique_ptr<Learner>> DenseLearners(const TrainOptions& options, const DataShape& shape,
                                                    const std::string& variants = "all") {
  std::vector<std::unique_ptr<Learner>> learners;
  learners.push_back(std::make_unique<SparseLearner>(
      SparseConfig::Parse("sparse:hidden=16,out_sparsity=1", shape), shape, options));
  if (variants != "dense") {
    learners.push_back(std::make_unique<BlasLearner>("blas:hidden=16,adam=lazy", shape, options));
#ifdef SPARSEBENCH_HAVE_TORCH
    learners.push_back(std::make_unique<TorchLearner>("torch:hidden=16,embedding_grad=sparse", shape, options));
#endif
  }
  if (variants != "sparse") {
    learners.push_back(std::make_unique<BlasLearner>("blas:hidden=16,adam=dense", shape, options));
#ifdef SPARSEBENCH_HAVE_TORCH
    learners.push_back(std::make_unique<TorchLearner>("torch:hidden=16,embedding_grad=dense", shape, options));
#endif
  }
  return learners;
}

std::vector<std::unique_ptr<Learner>> DenseLearners(const TrainOptions& options) {
  return DenseLearners(options, {kFeatures, kLabels});
}

// 80 rows of 2-4 features out of 200, 1-2 distinct labels of 9: a batch of 16 rows touches at most
// 64 features, and each batch a different set.
Dataset FewFeaturesPerRow(uint64_t seed) {
  Dataset d;
  d.num_features = 200;
  d.num_labels = kLabels;
  Rng rng(seed);
  for (uint32_t r = 0; r < 80; ++r) {
    std::set<uint32_t> ids;
    const uint32_t count = 2 + rng.Below(3);
    while (ids.size() < count) ids.insert(rng.Below(d.num_features));
    for (uint32_t f : ids) {
      d.feature_ids.push_back(f);
      d.values.push_back(static_cast<float>(0.3 + rng.Uniform()) / std::sqrt(static_cast<float>(count)));
    }
    d.row_offsets.push_back(d.feature_ids.size());
    d.label_ids.push_back(r % kLabels);
    if (r % 2 == 0) d.label_ids.push_back((r + 1 + r / 2 % 7) % kLabels);  // never r % kLabels
    d.label_offsets.push_back(d.label_ids.size());
  }
  return d;
}

// The loss of every step of one Train call (one epoch): the pauses after each batch give
// each batch's mean loss, the epoch's mean gives the last one.
std::vector<double> StepLosses(Learner& learner, const Dataset& data, uint32_t batch) {
  const uint32_t batches = static_cast<uint32_t>((data.rows() + batch - 1) / batch);
  std::vector<double> losses;
  double epoch_mean = 0;
  learner.Train(data, PausePlan{batches, [&](const Progress& p) {
                                  if (p.epoch_end) {
                                    epoch_mean = p.mean_loss;
                                  } else {
                                    losses.push_back(p.mean_loss);
                                  }
                                }});
  double earlier = 0;
  for (size_t i = 0; i < losses.size(); ++i) earlier += losses[i] * batch;
  losses.push_back((epoch_mean * static_cast<double>(data.rows()) - earlier) /
                   static_cast<double>(data.rows() - batch * (batches - 1)));
  return losses;
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

// Every learner follows the shared schedule: with a half-life of two steps the rate halves
// eight times in twenty steps, and the baselines still track the engine step for step, while
// the engine itself ends elsewhere than at a constant rate.
TEST(Fairness, EveryLearnerFollowsTheSharedLearningRateSchedule) {
  const Dataset data = testing::RandomDataset(kRows, kFeatures, kLabels, 11);
  TrainOptions options = OneThreadOneBatch();
  options.lr_half_life = 2 * kRows;
  auto learners = DenseLearners(options);
  TrainOptions constant = OneThreadOneBatch();
  constant.lr_half_life = 0;
  auto constant_learners = DenseLearners(constant);
  ASSERT_GE(learners.size(), 2u);
  double reference = 0, at_constant_rate = 0;
  for (int step = 1; step <= 20; ++step) {
    reference = testing::TrainReportingLastEpoch(*learners[0], data).mean_loss;
    at_constant_rate = testing::TrainReportingLastEpoch(*constant_learners[0], data).mean_loss;
    for (size_t i = 1; i < learners.size(); ++i) {
      const double loss = testing::TrainReportingLastEpoch(*learners[i], data).mean_loss;
      EXPECT_NEAR(loss, reference, 1e-4 * reference) << learners[i]->spec() << " at step " << step;
    }
  }
  EXPECT_GT(reference, at_constant_rate * 1.05);
  for (const auto& learner : learners) {
    EXPECT_NE(learner->settings().optimizer.find("halves every 96"), std::string::npos)
        << learner->spec();
  }
}

TEST(Fairness, ScheduleHoldsThenHalves) {
  TrainOptions options;
  options.lr = 0.01f;
  options.lr_half_life = 1000;
  EXPECT_EQ(ScheduledLr(options, 0), 0.01f);
  EXPECT_EQ(ScheduledLr(options, 1000), 0.01f);
  EXPECT_FLOAT_EQ(ScheduledLr(options, 2000), 0.005f);
  EXPECT_FLOAT_EQ(ScheduledLr(options, 4000), 0.00125f);
  EXPECT_FLOAT_EQ(ScheduledLr(options, 1500), 0.01f / std::sqrt(2.0f));
  options.lr_half_life = 0;
  EXPECT_EQ(ScheduledLr(options, 1'000'000'000), 0.01f);
  EXPECT_EQ(WithDefaults(TrainOptions{}).lr_half_life, kDefaultLrHalfLife);
}

TEST(Fairness, LazyAndSparseBaselinesTrackTheEngineOnBatchesThatSkipFeatures) {
  const Dataset data = FewFeaturesPerRow(21);
  TrainOptions options = OneThreadOneBatch();
  options.batch = 16;  // 5 steps an epoch
  options.lr = 0.05f;  // each feature is in about one batch an epoch: learn fast enough to show
  for (size_t begin = 0; begin < data.rows(); begin += options.batch) {
    std::set<uint32_t> touched;
    for (size_t r = begin; r < begin + options.batch; ++r) {
      for (uint32_t f : data.row(r).features) touched.insert(f);
    }
    ASSERT_LT(touched.size(), data.num_features / 2);
  }
  auto learners = DenseLearners(options, {data.num_features, data.num_labels}, "sparse");
  ASSERT_GE(learners.size(), 2u);
  std::vector<double> reference, first_epoch;
  for (int epoch = 1; epoch <= 4; ++epoch) {  // 20 steps
    reference = StepLosses(*learners[0], data, options.batch);
    ASSERT_EQ(reference.size(), 5u);
    for (size_t i = 1; i < learners.size(); ++i) {
      const std::vector<double> losses = StepLosses(*learners[i], data, options.batch);
      ASSERT_EQ(losses.size(), reference.size());
      for (size_t step = 0; step < losses.size(); ++step) {
        EXPECT_NEAR(losses[step], reference[step], 1e-4 * reference[step])
            << learners[i]->spec() << " at step " << (epoch - 1) * 5 + step + 1;
      }
    }
    if (epoch == 1) first_epoch = reference;
  }
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  EXPECT_LT(mean(reference), 0.9 * mean(first_epoch));  // the steps did learn something
}

// The test above can tell the update rules apart: dense Adam moves rows a batch did not touch.
TEST(Fairness, DenseAdamDriftsFromTheEngineOnBatchesThatSkipFeatures) {
  const Dataset data = FewFeaturesPerRow(21);
  TrainOptions options = OneThreadOneBatch();
  options.batch = 16;
  options.lr = 0.05f;
  auto learners = DenseLearners(options, {data.num_features, data.num_labels}, "dense");
  for (int epoch = 1; epoch <= 4; ++epoch) {
    const std::vector<double> reference = StepLosses(*learners[0], data, options.batch);
    for (size_t i = 1; i < learners.size(); ++i) {
      const std::vector<double> losses = StepLosses(*learners[i], data, options.batch);
      if (epoch < 4) continue;
      double worst = 0;
      for (size_t step = 0; step < losses.size(); ++step) {
        worst = std::max(worst, std::abs(losses[step] - reference[step]) / reference[step]);
      }
      EXPECT_GT(worst, 1e-3) << learners[i]->spec();
    }
  }
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
  const TrainOptions options = OneThreadOneBatch();
  EXPECT_EQ(BlasLearner("blas", {kFeatures, kLabels}, options).spec(), "blas:hidden=128,adam=lazy");
  EXPECT_EQ(BlasLearner("blas:adam=dense,hidden=8", {kFeatures, kLabels}, options).spec(),
            "blas:hidden=8,adam=dense");
  EXPECT_NE(BlasLearner("blas", {kFeatures, kLabels}, options).settings().optimizer.find("lazy"), std::string::npos);
  EXPECT_THROW(BlasLearner("blas:hiden=4", {kFeatures, kLabels}, options), std::exception);
  EXPECT_THROW(BlasLearner("blas:adam=sparse", {kFeatures, kLabels}, options), std::exception);
  EXPECT_THROW(BlasLearner("blas:embedding_grad=sparse", {kFeatures, kLabels}, options), std::exception);
#ifdef SPARSEBENCH_HAVE_TORCH
  EXPECT_EQ(TorchLearner("torch", {kFeatures, kLabels}, options).spec(),
            "torch:hidden=128,embedding_grad=sparse,device=cpu,precision=fp32");
  EXPECT_EQ(TorchLearner("torch:embedding_grad=dense", {kFeatures, kLabels}, options).spec(),
            "torch:hidden=128,embedding_grad=dense,device=cpu,precision=fp32");
  EXPECT_NE(TorchLearner("torch", {kFeatures, kLabels}, options).settings().optimizer.find("SparseAdam"),
            std::string::npos);
  EXPECT_THROW(TorchLearner("torch:embedding_grad=lazy", {kFeatures, kLabels}, options), std::exception);
  EXPECT_THROW(TorchLearner("torch:adam=lazy", {kFeatures, kLabels}, options), std::exception);
#endif
}

}  // namespace
}  // namespace sparsebench
