// The exact scorer behind PredictExact must equal scoring every output with Network::Logit.
#include "engine/model/exact_scorer.h"

#include <gtest/gtest.h>

#include "engine/api/tests/test_util.h"
#include "engine/model/inference.h"

namespace sparsebench {
namespace {

void ExpectSameAsLogitEverywhere(const Network& net, const Dataset& data) {
  const TopK fast = PredictExact(net, data, 5, 2);
  for (size_t r = 0; r < data.rows(); ++r) {
    const TopK one = PredictRowExact(net, data.row(r), 5);
    for (uint32_t i = 0; i < 5; ++i) {
      ASSERT_EQ(fast.ids[r * 5 + i], one.ids[i]) << "row " << r << " rank " << i;
      ASSERT_EQ(fast.scores[r * 5 + i], one.scores[i]) << "row " << r << " rank " << i;
    }
  }
}

TEST(ExactScorer, EqualsLogitOverEveryOutput) {
  // Outputs not a multiple of the panel, an odd hidden width, more rows than one block.
  Network net({40, 13, 1001}, 3);
  for (size_t i = 0; i < net.output.bias.size(); ++i)
    net.output.bias[i] = 0.01f * static_cast<float>(i % 17);
  ExpectSameAsLogitEverywhere(net, testing::RandomDataset(300, 40, 1001, 8));
}

TEST(ExactScorer, NearTiesAndExactTiesGoToTheLowerId) {
  Network net({8, 16, 200}, 4);
  // Outputs 10..19 identical, 50 and 60 a hair apart: within any approximate kernel's error.
  for (uint32_t o = 11; o < 20; ++o) std::copy_n(net.output.row(10), 16, net.output.row(o));
  std::copy_n(net.output.row(50), 16, net.output.row(60));
  net.output.row(60)[3] = std::nextafter(net.output.row(60)[3], 1.0f);
  for (float& b : net.output.bias) b = 0;
  net.output.bias[10] = 5;
  for (uint32_t o = 11; o < 20; ++o) net.output.bias[o] = 5;
  ExpectSameAsLogitEverywhere(net, testing::RandomDataset(50, 8, 200, 9));
}

TEST(ExactScorer, FewerOutputsThanK) {
  Network net({6, 8, 3}, 5);
  const Dataset data = testing::RandomDataset(10, 6, 3, 1);
  const TopK top = PredictExact(net, data, 5, 1);
  for (size_t r = 0; r < data.rows(); ++r) EXPECT_EQ(top.ids[r * 5 + 3], UINT32_MAX);
  ExpectSameAsLogitEverywhere(net, data);
}

}  // namespace
}  // namespace sparsebench
