// torch-py (tools/engines/torch_py.py, Python PyTorch over the protocol) is the `torch`
// baseline's model: the same initial weights, batches, batch order, loss, Adam and schedule,
// so its loss tracks LibTorch's step for step and it ends with the same predictions.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/api/tests/test_util.h"
#include "harness/measure/external/exec_learner.h"
#include "harness/measure/external/protocol.h"
#ifdef SPARSEBENCH_HAVE_TORCH
#include "baselines/torch_learner.h"
#endif

namespace sparsebench {
namespace {

// 5,000 features x 16 hidden: the input table spans two of the initializer's 2^16-weight
// streams (engine/model/parameters.cc), which torch_py.py draws all at once.
constexpr uint32_t kRows = 200, kFeatures = 5000, kLabels = 9, kBatch = 16;

TrainOptions Options() {
  TrainOptions options;
  options.batch = kBatch;
  options.epochs = 3;
  options.lr = 0.01;
  options.lr_half_life =
      4 * kRows / 3;  // the rate halves twice in the run: the schedule is tested too
  options.threads = 1;
  options.seed = 5;
  return options;
}

// RandomDataset's rows, each labelled by its first feature: something to learn.
Dataset Learnable(uint32_t rows) {
  Dataset d = testing::RandomDataset(rows, kFeatures, kLabels, 11);
  std::vector<uint32_t> labels;
  for (uint32_t r = 0; r < rows; ++r) labels.push_back(d.row(r).features[0] % kLabels);
  d.label_ids = labels;
  d.label_offsets.resize(1);
  for (uint32_t r = 1; r <= rows; ++r) d.label_offsets.push_back(r);
  return d;
}

// The loss of every batch but each epoch's last (a pause after every batch), then the
// predictions after training.
struct Trajectory {
  std::vector<double> losses;
  TopK top;
};

Trajectory Train(Learner& learner, const Dataset& data) {
  Trajectory t;
  learner.Stage(data);
  const uint32_t batches = (data.rows() + kBatch - 1) / kBatch;
  learner.Train(data, PausePlan{batches, [&](const Progress& p) {
                                  if (!p.epoch_end) t.losses.push_back(p.mean_loss);
                                }});
  t.top = learner.Predict(data, 5);
  learner.Finish();
  const auto context = learner.context();
  if (context.contains("engine_off_clock")) {
    EXPECT_EQ(context.at("engine_off_clock"), "");
  }
  return t;
}

#ifdef SPARSEBENCH_HAVE_TORCH
class TorchPy : public ::testing::TestWithParam<std::string> {};

// Same LibTorch underneath, same operations in the same order on one thread: the stated
// tolerance, 1e-5 of the loss, is far below what one changed batch or rate would move.
TEST_P(TorchPy, TracksTheLibTorchBaselineStepForStepAndPredictsTheSame) {
  const Dataset data = Learnable(kRows);
  const std::string grad = GetParam();
  TorchLearner cpp("torch:hidden=16,embedding_grad=" + grad, {kFeatures, kLabels}, Options());
  ExecLearner py("exec:torch_py,hidden=16,embedding_grad=" + grad, {kFeatures, kLabels}, Options());
  const Trajectory expected = Train(cpp, data), got = Train(py, data);
  ASSERT_EQ(got.losses.size(), 3u * 12);
  ASSERT_EQ(got.losses.size(), expected.losses.size());
  for (size_t i = 0; i < got.losses.size(); ++i) {
    EXPECT_NEAR(got.losses[i], expected.losses[i], 1e-5 * expected.losses[i]) << "batch " << i;
  }
  const auto epoch_mean = [&](size_t epoch) {
    double sum = 0;
    for (size_t i = epoch * 12; i < (epoch + 1) * 12; ++i) sum += got.losses[i];
    return sum / 12;
  };
  EXPECT_LT(epoch_mean(2), 0.9 * epoch_mean(0));  // it learned
  EXPECT_EQ(got.top.ids, expected.top.ids);
  EXPECT_NE(py.settings().optimizer.find("halves every 266"), std::string::npos)
      << py.settings().optimizer;
}

INSTANTIATE_TEST_SUITE_P(EmbeddingGrad, TorchPy, ::testing::Values("dense", "sparse"));

// The test above can fail: another seed is another start and another order.
TEST(TorchPyFairness, AnotherSeedGivesAnotherTrajectory) {
  const Dataset data = Learnable(kRows);
  TrainOptions other = Options();
  other.seed = 6;
  TorchLearner cpp("torch:hidden=16,embedding_grad=dense", {kFeatures, kLabels}, Options());
  ExecLearner py("exec:torch_py,hidden=16", {kFeatures, kLabels}, other);
  const Trajectory expected = Train(cpp, data), got = Train(py, data);
  ASSERT_EQ(got.losses.size(), expected.losses.size());
  EXPECT_GT(std::abs(got.losses[0] - expected.losses[0]), 1e-3 * expected.losses[0]);
}
#endif

// `spec` refuses to stage: an `error` row whose reason holds `reason`.
void ExpectRefused(const std::string& spec, const std::string& reason) {
  ExecLearner py(spec, {kFeatures, kLabels}, Options());
  try {
    py.Stage(testing::RandomDataset(20, kFeatures, kLabels, 11));
    FAIL() << spec << " staged";
  } catch (const EngineFault& fault) {
    EXPECT_EQ(fault.status(), CellStatus::kError);
    EXPECT_NE(std::string(fault.what()).find(reason), std::string::npos) << fault.what();
  }
}

TEST(TorchPyDevice, CudaWithoutAGpuIsAnErrorThatSaysSo) {
  if (std::filesystem::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has a GPU";
  ExpectRefused("exec:torch_py,device=cuda",
                "torch-py:device=cuda needs PyTorch with CUDA and a GPU");
}

TEST(TorchPyOptions, AnUnknownOptionIsAnErrorNamingIt) {
  ExpectRefused("exec:torch_py,hiden=16", "unknown option(s) hiden");
}

}  // namespace
}  // namespace sparsebench
