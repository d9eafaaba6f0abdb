// torch:precision=bf16 (LibTorch's CPU autocast) is the fp32 torch row computed in bf16: held
// to it step for step within bf16's rounding, and refused with a clear error where the CPU
// cannot compute in bf16.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "baselines/cpu_bf16.h"
#include "baselines/torch_learner.h"
#include "datasets/metrics.h"
#include "engine/api/engine_error.h"
#include "engine/api/tests/test_util.h"

namespace sparsebench {
namespace {

constexpr uint32_t kRows = 256, kFeatures = 120, kLabels = 2000;

TrainOptions OneStepAnEpoch() {
  TrainOptions options;
  options.batch = kRows;
  options.epochs = 1;
  options.lr = 0.01f;
  options.threads = 1;
  options.seed = 3;
  return options;
}

TEST(TorchBf16, SpecNamesThePrecision) {
  const TrainOptions options = OneStepAnEpoch();
  EXPECT_EQ(TorchLearner("torch:embedding_grad=dense", {kFeatures, kLabels}, options)
                .settings()
                .precision,
            "fp32");
  EXPECT_THROW(TorchLearner("torch:precision=fp16", {kFeatures, kLabels}, options), ConfigError);
  EXPECT_THROW(TorchLearner("torch:precision=bf16,device=cuda", {kFeatures, kLabels}, options),
               ConfigError);
}

TEST(TorchBf16, ACpuWithoutBf16IsRefusedWithItsReason) {
  EXPECT_NO_THROW(RequireNativeBf16(true, "torch:precision=bf16"));
  try {
    RequireNativeBf16(false, "torch:precision=bf16");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("torch:precision=bf16: this CPU has no native bf16"),
              std::string::npos)
        << e.what();
  }
  if (!CpuHasNativeBf16()) {
    EXPECT_THROW(TorchLearner("torch:precision=bf16", {kFeatures, kLabels}, OneStepAnEpoch()),
                 ConfigError);
  }
}

// Tolerance: bf16 keeps 8 significant bits (relative rounding 2^-9), so each logit carries
// errors of about 0.4% of its terms; over 20 steps the summed loss stays within 0.5% of fp32's
// at every step and the top-5 predictions of the two models mostly agree.
TEST(TorchBf16, TracksFp32WithinBf16ToleranceForTwentySteps) {
  if (!CpuHasNativeBf16()) GTEST_SKIP() << "this CPU has no native bf16";
  const Dataset data = testing::RandomDataset(kRows, kFeatures, kLabels, 17);
  const TrainOptions options = OneStepAnEpoch();
  TorchLearner fp32("torch:hidden=64,embedding_grad=dense", {kFeatures, kLabels}, options);
  TorchLearner bf16("torch:hidden=64,embedding_grad=dense,precision=bf16", {kFeatures, kLabels},
                    options);
  EXPECT_NE(bf16.settings().precision.find("bf16 autocast"), std::string::npos);
  double first = 0, last = 0, largest_gap = 0;
  bool differs = false;
  for (int step = 1; step <= 20; ++step) {
    const double reference = testing::TrainReportingLastEpoch(fp32, data).mean_loss;
    const double loss = testing::TrainReportingLastEpoch(bf16, data).mean_loss;
    EXPECT_NEAR(loss, reference, 0.005 * reference) << "step " << step;
    largest_gap = std::max(largest_gap, std::abs(loss - reference) / reference);
    differs |= loss != reference;
    (step == 1 ? first : last) = reference;
  }
  EXPECT_TRUE(differs) << "bf16 gave fp32's losses bit for bit: autocast did not engage";
  EXPECT_LT(last, 0.8 * first);
  const TopK a = fp32.Predict(data, 5), b = bf16.Predict(data, 5);
  size_t same_top1 = 0, shared = 0;
  for (size_t r = 0; r < data.rows(); ++r) {
    same_top1 += a.ids[r * 5] == b.ids[r * 5];
    for (size_t i = 0; i < 5; ++i)
      for (size_t j = 0; j < 5; ++j) shared += a.ids[r * 5 + i] == b.ids[r * 5 + j];
  }
  EXPECT_GE(same_top1, 0.9 * data.rows());
  EXPECT_GE(shared, 0.9 * 5 * data.rows());
  EXPECT_NEAR(ComputeMetrics(b, data).p_at_1, ComputeMetrics(a, data).p_at_1, 0.03);
  RecordProperty("largest_relative_loss_gap", std::to_string(largest_gap));
}

}  // namespace
}  // namespace sparsebench
