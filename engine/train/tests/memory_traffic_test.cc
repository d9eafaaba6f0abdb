// The bytes each phase moves, against a count by hand.
#include "engine/train/memory_traffic.h"

#include <gtest/gtest.h>

namespace sparsebench {
namespace {

EpochStats Counts() {
  EpochStats s;
  s.input_rows_updated = 3;
  s.output_rows_updated = 5;
  s.buckets_probed = 7;
  s.bucket_ids_read = 11;
  s.rebuilds = 2;
  return s;
}

// Hidden 4: an fp32 row is 16 bytes, a bf16 row 8; a bias and its moments 4 bytes each.
TEST(MemoryTraffic, EachPhaseCountsItsDistinctRowsInTheirStorage) {
  Network net({10, 4, 6}, 1);
  PhaseBytes b = BytesMoved(Counts(), net, 100);
  EXPECT_EQ(b.input_rows_read, 3 * 16);
  EXPECT_EQ(b.buckets_read, 7 * 4 + 11 * 4);
  EXPECT_EQ(b.output_rows_read, 5 * (16 + 4));
  EXPECT_EQ(b.samples(), 3 * 16 + 7 * 4 + 11 * 4 + 5 * (16 + 4));
  EXPECT_EQ(b.output_rows_updated, 2 * 5 * (3 * 16 + 3 * 4));
  EXPECT_EQ(b.input_rows_updated, 2 * 3 * (3 * 16));
  EXPECT_EQ(b.update(), 2 * (5 * (3 * 16 + 3 * 4) + 3 * (3 * 16)));
  EXPECT_EQ(b.rebuild, 2 * (6 * 16 + 100));
  net.output.UseBf16Moments();
  net.output.UseBf16Weights();
  b = BytesMoved(Counts(), net, 100);
  EXPECT_EQ(b.samples(), 3 * 16 + 7 * 4 + 11 * 4 + 5 * (8 + 4));
  EXPECT_EQ(b.update(), 2 * (5 * (3 * 8 + 3 * 4) + 3 * (3 * 16)));
  EXPECT_EQ(b.rebuild, 2 * (6 * 8 + 100));
}

}  // namespace
}  // namespace sparsebench
