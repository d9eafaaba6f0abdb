#include "datasets/stats.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include "datasets/reader.h"
#include "datasets/tests/test_paths.h"

namespace sparsebench {
namespace {

using testing::DataFile;

uint64_t PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

TEST(Stats, CountsRowsPerLabel) {
  const DatasetStats s = ComputeStats(ReadDataset(DataFile("xmc_valid.txt"), Format::kXmc));
  EXPECT_EQ(s.rows, 4u);
  EXPECT_EQ(s.labels, 5u);
  EXPECT_EQ(s.labels_seen, 5u);  // label 2 in two rows, the others in one
  EXPECT_EQ(s.max_labels_per_row, 3u);
  ASSERT_EQ(s.label_frequency_quantiles.size(), kLabelQuantiles.size());
  EXPECT_EQ(s.label_frequency_quantiles.back(), 2u);
}

// Issue 13: `data check` sized a count array by L from the header (2^31 labels: 16 GiB) or
// from max id + 1 (which wrapped to 0 for id 4294967295 and then wrote out of bounds).
TEST(Stats, MemoryFollowsTheDataNotTheClaimedLabelCount) {
  const uint64_t before = PeakRssBytes();
  for (auto [name, format] : {std::pair{"xmc_large_labels.txt", Format::kXmc},
                              std::pair{"libsvm_large_label.txt", Format::kLibsvm}}) {
    const DatasetStats s = ComputeStats(ReadDataset(DataFile(name), format));
    EXPECT_EQ(s.labels, kMaxDimension) << name;
    EXPECT_EQ(s.labels_seen, format == Format::kXmc ? 2u : 3u) << name;
  }
  EXPECT_LT(PeakRssBytes() - before, uint64_t{256} << 20);
}

}  // namespace
}  // namespace sparsebench
