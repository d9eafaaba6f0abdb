#include "datasets/metrics.h"

#include <gtest/gtest.h>

namespace sparsebench {
namespace {

Dataset Labels(const std::vector<std::vector<uint32_t>>& rows) {
  Dataset d;
  for (const auto& labels : rows) {
    d.label_ids.insert(d.label_ids.end(), labels.begin(), labels.end());
    d.label_offsets.push_back(d.label_ids.size());
  }
  return d;
}

TEST(Metrics, PrecisionAtK) {
  TopK top;
  top.k = 5;
  top.ids = {1, 2, 3, 4, 5,  9, 8, 7, 6, 5};
  top.scores.assign(10, 0.0f);
  Metrics m = ComputeMetrics(top, Labels({{1, 4}, {5, 6, 0}}));
  EXPECT_DOUBLE_EQ(m.p_at_1, 0.5);
  EXPECT_DOUBLE_EQ(m.p_at_3, (1.0 / 3 + 0.0) / 2);
  EXPECT_DOUBLE_EQ(m.p_at_5, (2.0 / 5 + 2.0 / 5) / 2);
  EXPECT_FALSE(m.accuracy.has_value());
}

TEST(Metrics, AccuracyForSingleLabelRows) {
  TopK top;
  top.k = 5;
  top.ids = {0, 1, ~0u, ~0u, ~0u,  0, 1, ~0u, ~0u, ~0u};
  top.scores.assign(10, 0.0f);
  Metrics m = ComputeMetrics(top, Labels({{0}, {1}}));
  ASSERT_TRUE(m.accuracy.has_value());
  EXPECT_DOUBLE_EQ(*m.accuracy, 0.5);
}

TEST(Metrics, TopKSelectionIsOrderedAndPadded) {
  const std::vector<float> scores = {0.1f, 0.9f, 0.5f, 0.9f};
  uint32_t ids[5];
  float best[5];
  SelectTopK(scores, {}, 5, ids, best);
  EXPECT_EQ(ids[0], 1u);  // ties keep the earlier one first
  EXPECT_EQ(ids[1], 3u);
  EXPECT_EQ(ids[2], 2u);
  EXPECT_EQ(ids[3], 0u);
  EXPECT_EQ(ids[4], ~0u);
}

TEST(Metrics, RejectsMismatchedPredictions) {
  TopK top;
  top.k = 5;
  top.ids.assign(5, 0);
  EXPECT_THROW(ComputeMetrics(top, Labels({{0}, {1}})), std::invalid_argument);
}

TEST(Metrics, SelectionRecallCountsTopFiveAndLabelsFoundInTheActiveSet) {
  TopK top;
  top.k = 5;
  top.ids = {1, 2, 3, 4, 5,  10, 11, 12, 13, 14};
  top.scores.assign(10, 0.0f);
  const std::vector<std::vector<uint32_t>> active = {{5, 3, 9, 1}, {99}};
  const SelectionRecall r = MeasureSelectionRecall(top, active, Labels({{9, 8}, {99}}));
  EXPECT_DOUBLE_EQ(r.active_at_5, (3.0 / 5 + 0.0) / 2);
  EXPECT_DOUBLE_EQ(r.labels, (0.5 + 1.0) / 2);
  EXPECT_DOUBLE_EQ(r.mean_active, 2.5);
  EXPECT_THROW(MeasureSelectionRecall(top, {{1}}, Labels({{9}, {99}})), std::invalid_argument);
}

}  // namespace
}  // namespace sparsebench
