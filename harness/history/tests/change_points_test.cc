// Change points on synthetic series, and the statistics under them against known values.
#include "harness/history/change_points.h"

#include <gtest/gtest.h>

#include "harness/history/stats.h"
#include "harness/history/tests/synthetic.h"

namespace sparsebench {
namespace {

using testing::Joined;
using testing::Noisy;

TEST(Stats, StudentPValuesMatchTables) {
  EXPECT_NEAR(StudentTwoSidedP(2.228, 10), 0.05, 1e-3);  // t(0.975, 10)
  EXPECT_NEAR(StudentTwoSidedP(1.96, 1e6), 0.05, 1e-3);
  EXPECT_NEAR(StudentTwoSidedP(63.657, 1), 0.01, 1e-4);
  EXPECT_DOUBLE_EQ(StudentTwoSidedP(0, 5), 1);
}

TEST(Stats, WelchAndTheLine) {
  EXPECT_EQ(WelchP(std::vector{1.0, 1.0}, std::vector{2.0, 2.0}), 0);
  EXPECT_EQ(WelchP(std::vector{1.0, 1.0}, std::vector{1.0, 1.0}), 1);
  EXPECT_GT(WelchP(std::vector{1.0, 2.0, 3.0}, std::vector{1.5, 2.5, 3.5}), 0.5);
  const LinearFit fit = FitLine(std::vector{1.0, 2.0, 3.1, 3.9, 5.0});
  EXPECT_NEAR(fit.slope, 0.99, 1e-9);
  EXPECT_LT(fit.p, 1e-4);
  EXPECT_NEAR(fit.last - fit.first, 4 * 0.99, 1e-9);
  EXPECT_DOUBLE_EQ(Median(std::vector{3.0, 1.0, 2.0, 10.0}), 2.5);
}

// A 10% step at 3% noise, 8 points on each side: found at its commit. Over 200 seeds, since
// noise alone can make a point beside the step look like part of it: at least 80% are found at
// the step exactly (of the draws, about one in ten has a point nearer the other side's level),
// 95% within one commit, and at most 3% split twice.
TEST(ChangePoints, TenPercentStepAtThreePercentNoiseFoundAtItsPoint) {
  const auto first = FindChangePoints(Joined(Noisy(8, 1.0, 0.03, 1), Noisy(8, 1.1, 0.03, 1001)));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].index, 8u);
  EXPECT_NEAR(first[0].change(), 0.10, 0.03);
  EXPECT_LT(first[0].p, 0.001);
  int exact = 0, near = 0, twice = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const auto x = Joined(Noisy(8, 1.0, 0.03, seed), Noisy(8, 1.1, 0.03, seed + 1000));
    const auto points = FindChangePoints(x);
    twice += points.size() > 1;
    if (points.empty()) continue;
    exact += points[0].index == 8;
    near += points[0].index >= 7 && points[0].index <= 9;
  }
  EXPECT_GE(exact, 160);
  EXPECT_GE(near, 190);
  EXPECT_LE(twice, 6);
}

// No alarm over 200 flat points at 5% noise; over 200 such series, at most 2% with one (each
// series tries some 200 splits, and the best of them is what the t-test sees).
TEST(ChangePoints, NoneOverTwoHundredFlatPointsAtFivePercentNoise) {
  EXPECT_TRUE(FindChangePoints(Noisy(200, 3.0, 0.05, 1)).empty());
  int alarms = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    alarms += !FindChangePoints(Noisy(200, 3.0, 0.05, seed)).empty();
  }
  EXPECT_LE(alarms, 4);
}

TEST(ChangePoints, TwoStepsBothFoundAndAStepBelowTheMagnitudeIgnored) {
  const auto x =
      Joined(Joined(Noisy(10, 1.0, 0.01, 1), Noisy(10, 1.3, 0.01, 2)), Noisy(10, 0.9, 0.01, 3));
  const auto points = FindChangePoints(x);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].index, 10u);
  EXPECT_EQ(points[1].index, 20u);
  EXPECT_GT(points[0].change(), 0.25);
  EXPECT_LT(points[1].change(), -0.25);
  // 2% up at 0.1% noise: significant, but smaller than the 5% that counts as a change.
  EXPECT_TRUE(
      FindChangePoints(Joined(Noisy(10, 1.0, 0.001, 4), Noisy(10, 1.02, 0.001, 5))).empty());
}

TEST(ChangePoints, ExactSeriesSplitWhereTheyChange) {
  const std::vector<double> x = {5, 5, 5, 5, 7, 7, 7};
  const auto points = FindChangePoints(x);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].index, 4u);
  EXPECT_DOUBLE_EQ(points[0].change(), 0.4);
  EXPECT_TRUE(FindChangePoints(std::vector<double>{1, 2}).empty());
  EXPECT_TRUE(FindChangePoints(std::vector<double>{}).empty());
}

}  // namespace
}  // namespace sparsebench
