#include "datasets/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace sparsebench {
namespace {

TEST(Dataset, SeededPermutationIsAPermutationAndRepeatable) {
  auto a = SeededPermutation(1000, 7);
  auto b = SeededPermutation(1000, 7);
  auto c = SeededPermutation(1000, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::sort(a.begin(), a.end());
  for (uint32_t i = 0; i < 1000; ++i) EXPECT_EQ(a[i], i);
}

TEST(Dataset, HeldOutSplitPartitionsRows) {
  RowSplit s = HeldOutSplit(1000, 0.1, 3);
  EXPECT_EQ(s.held_out.size(), 100u);
  EXPECT_EQ(s.train.size(), 900u);
  std::vector<uint32_t> all = s.train;
  all.insert(all.end(), s.held_out.begin(), s.held_out.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  EXPECT_EQ(HeldOutSplit(1000, 0.1, 3).held_out, s.held_out);
}

TEST(Dataset, TakeRowsCopiesFeaturesLabelsAndText) {
  Dataset d;
  d.num_features = 5;
  d.num_labels = 3;
  for (uint32_t r = 0; r < 4; ++r) {
    d.feature_ids.push_back(r);
    d.values.push_back(static_cast<float>(r) + 0.5f);
    d.row_offsets.push_back(d.feature_ids.size());
    d.label_ids.push_back(r % 3);
    d.label_offsets.push_back(d.label_ids.size());
    d.text.push_back("row " + std::to_string(r));
  }
  const std::vector<uint32_t> rows = {3, 1};
  Dataset t = TakeRows(d, rows);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.row(0).features[0], 3u);
  EXPECT_FLOAT_EQ(t.row(1).values[0], 1.5f);
  EXPECT_EQ(t.labels(0)[0], 0u);
  EXPECT_EQ(t.text.at(1), "row 1");
  EXPECT_EQ(t.num_features, 5u);
}

TEST(Dataset, BatchesCoverAllRows) {
  auto b = Batches(10, 4);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[2].begin, 8u);
  EXPECT_EQ(b[2].end, 10u);
}

}  // namespace
}  // namespace sparsebench
