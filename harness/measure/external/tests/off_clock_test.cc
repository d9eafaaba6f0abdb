// The referee's rule for work off the clock (off_clock.h), on figures measured in real cells.
#include "harness/measure/external/off_clock.h"

#include <gtest/gtest.h>

namespace sparsebench {
namespace {

// sklearn on dbpedia 0.05 (2026-12-06): 20 pauses of 2,000 rows, each first copying its
// 117 MB of transposed weights; the test set's 3,500 rows after done reuse the last copy.
PhaseCpu SklearnOnDbpedia() {
  PhaseCpu c;
  c.startup = 0.51;
  c.load = 0.14;
  c.reference_read = 0.10;
  c.train = 9.40;
  c.pause = 4.82;
  c.pause_rows = 40000;
  c.pause_requests = 20;
  c.after_predict = 0.11;
  c.after_rows = 3500;
  c.model_gb = 0.117;
  return c;
}

TEST(OffClockWork, HonestFiguresAreNotFlagged) {
  EXPECT_TRUE(OffClockWork(SklearnOnDbpedia()).empty());
  // torch-py on amazon670k 0.1: 0.50 ms a row in pauses, 0.47 after done.
  PhaseCpu torch;
  torch.load = 1.63;
  torch.reference_read = 0.95;
  torch.pause = 12.0;
  torch.pause_rows = 24000;
  torch.pause_requests = 12;
  torch.after_predict = 7.16;
  torch.after_rows = 15303;
  torch.model_gb = 0.125;
  EXPECT_TRUE(OffClockWork(torch).empty());
}

TEST(OffClockWork, EachPhaseIsFlaggedPastItsAllowance) {
  PhaseCpu load = SklearnOnDbpedia();
  load.load = 10 * 0.10 + 2 + 0.01;
  ASSERT_EQ(OffClockWork(load).size(), 1u);
  EXPECT_NE(OffClockWork(load)[0].find("load took 3.01 CPU-s"), std::string::npos);
  load.load -= 0.02;
  EXPECT_TRUE(OffClockWork(load).empty());

  PhaseCpu pauses = SklearnOnDbpedia();  // allowed: 3 × (40000 × 0.11 / 3500 + 20 × 0.117) + 1
  pauses.pause = 3 * (40000 * 0.11 / 3500 + 20 * 0.117) + 1 + 0.01;
  ASSERT_EQ(OffClockWork(pauses).size(), 1u);
  EXPECT_NE(OffClockWork(pauses)[0].find("pauses took"), std::string::npos);

  PhaseCpu after = SklearnOnDbpedia();  // allowed: 3 × 3500 × 4.82 / 40000 + 1
  after.after_predict = 3 * 3500 * 4.82 / 40000 + 1 + 0.01;
  ASSERT_EQ(OffClockWork(after).size(), 1u);
  EXPECT_NE(OffClockWork(after)[0].find("the test set's predictions after done"),
            std::string::npos);
}

// Pauses that predicted nothing are allowed the slack only; without pause predictions the
// test set's predictions have nothing to be held against.
TEST(OffClockWork, PausesWithoutPredictions) {
  PhaseCpu c;
  c.after_predict = 50;
  c.after_rows = 1000;
  c.pause = 0.9;
  EXPECT_TRUE(OffClockWork(c).empty());
  c.pause = 1.1;
  EXPECT_EQ(OffClockWork(c).size(), 1u);
}

}  // namespace
}  // namespace sparsebench
