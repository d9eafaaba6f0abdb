// The newest point against its history on synthetic series: a step, a drift, flat noise, exact
// counters, failures and annotations.
#include "harness/history/check.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/history/tests/synthetic.h"

namespace sparsebench {
namespace {

using testing::Noisy;

// Commit i of a series: `repeats` repeats around `level` (1% spread) at seeds 1, 2, ..., its
// parent commit i - 1.
HistoryPoint Point(size_t i, double level, uint64_t seed, size_t repeats = 5) {
  HistoryPoint p;
  p.commit = fmt::format("{:07x}0", i + 1);
  p.parent = i == 0 ? "" : fmt::format("{:07x}0", i);
  p.commit_date = fmt::format("2026-01-01T00:00:{:05}", i);
  p.settings_hash = "s";
  p.build = "b";
  p.seconds = Noisy(repeats, level, 0.01, seed);
  p.metric = std::vector<double>(repeats, 0.5);
  for (uint64_t seed = 1; seed <= repeats; ++seed)  // each repeat's seed: its own work
    p.counters.push_back({seed, {{"active_neurons", 1000 + seed}, {"samples", 10}}});
  p.starts_segment = i == 0;
  return p;
}

std::vector<HistoryPoint> Series(const std::vector<double>& levels, uint64_t seed) {
  std::vector<HistoryPoint> s;
  for (size_t i = 0; i < levels.size(); ++i) s.push_back(Point(i, levels[i], seed * 1000 + i));
  return s;
}

Verdict Worst(const std::vector<Finding>& found) {
  Verdict worst = Verdict::kOk;
  for (const Finding& f : found) worst = std::max(worst, f.verdict);
  return worst;
}

const Finding* Find(const std::vector<Finding>& found, const std::string& what) {
  for (const Finding& f : found) {
    if (f.what == what) return &f;
  }
  return nullptr;
}

std::vector<Finding> Check(const std::vector<HistoryPoint>& history, const HistoryPoint& now,
                           const std::vector<Annotation>& annotations = {},
                           bool measured_again = false) {
  CheckOptions options;
  options.measured_again = measured_again;
  return CheckCell("d/e/t2", history, now, Measure::kSeconds, true, annotations, options);
}

// CI's rule: a suspect point is measured again (a new run, its repeats added) and checked once
// more; what that says stands.
Verdict AsCiWould(const std::vector<HistoryPoint>& history, HistoryPoint now, double level,
                  uint64_t seed) {
  const Verdict first = Worst(Check(history, now));
  if (first != Verdict::kSuspect) return first;
  const HistoryPoint again = Point(history.size(), level, seed);
  now.seconds.insert(now.seconds.end(), again.seconds.begin(), again.seconds.end());
  return Worst(Check(history, now, {}, /*measured_again=*/true));
}

TEST(Check, ATwentyPercentStepFailsAndTheSameCommitMeasuredAgainPasses) {
  const auto history = Series(Noisy(12, 1.0, 0.03, 7), 1);
  const HistoryPoint slow = Point(12, 1.2, 99);
  const auto found = Check(history, slow);
  EXPECT_EQ(Worst(found), Verdict::kRegression);
  ASSERT_NE(Find(found, "seconds"), nullptr);
  EXPECT_EQ(Find(found, "seconds")->verdict, Verdict::kRegression)
      << Find(found, "seconds")->detail;
  EXPECT_EQ(Worst(Check(history, Point(12, 1.0, 98))), Verdict::kOk);
}

// Slow against its segment but no slower than its parent's repeats, or slower than its parent
// with too short a segment to ask: measured again first.
TEST(Check, WhereTheTwoTestsDisagreeOrOneCannotBeAskedThePointIsSuspect) {
  auto history = Series(Noisy(12, 1.0, 0.01, 11), 12);
  history.push_back(Point(12, 1.4, 13));
  auto found = Check(history, Point(13, 1.4, 14));
  EXPECT_EQ(Find(found, "seconds")->verdict, Verdict::kSuspect) << Find(found, "seconds")->detail;
  found = Check(Series({1.0, 1.0}, 15), Point(2, 1.3, 16));
  EXPECT_EQ(Find(found, "seconds")->verdict, Verdict::kSuspect) << Find(found, "seconds")->detail;
  CheckResult result;
  result.findings = found;
  EXPECT_EQ(result.ExitCode(), 2);
}

// A machine slower than the one the segment was measured on, at the parent and now alike (the
// parent within its segment's noise): measured again, it is noted, not failed. A parent that was
// itself out of its segment keeps the point suspect.
TEST(Check, MeasuredAgainAsSlowAsAParentWithinItsSegmentIsTheMachine) {
  auto history = Series(Noisy(30, 1.0, 0.02, 21), 22);
  HistoryPoint parent = Point(30, 1.0, 23);
  parent.seconds = {0.95, 1.0, 1.05, 1.35, 1.45};
  history.push_back(parent);
  HistoryPoint now = Point(31, 1.0, 24, 10);
  now.seconds = {1.0, 1.1, 1.25, 1.3, 1.4, 1.02, 1.12, 1.24, 1.32, 1.38};
  EXPECT_EQ(Find(Check(history, now), "seconds")->verdict, Verdict::kSuspect);
  const Finding again = *Find(Check(history, now, {}, true), "seconds");
  EXPECT_EQ(again.verdict, Verdict::kNote) << again.detail;
  EXPECT_NE(again.detail.find("the machine, not this commit"), std::string::npos) << again.detail;
  history[29] = Point(29, 0.97, 25);  // too unlike the parent to form a segment with it
  history.back().seconds = {1.12, 1.14, 1.16, 1.3, 1.35};
  const Finding out = *Find(Check(history, now, {}, true), "seconds");
  EXPECT_EQ(out.verdict, Verdict::kSuspect) << out.detail;
}

// Each commit 1% slower than the last: no single step stands out, the line through them does.
TEST(Check, ADriftOfOnePercentACommitOverTwentyCommitsIsFlagged) {
  std::vector<double> levels;
  for (int i = 0; i < 20; ++i) levels.push_back(std::pow(1.01, i));
  const auto noise = Noisy(20, 1.0, 0.01, 3);
  for (size_t i = 0; i < levels.size(); ++i) levels[i] *= noise[i];
  const auto history = Series(levels, 2);
  const auto found = Check(history, Point(20, std::pow(1.01, 20), 77));
  const Finding* drift = Find(found, "drift");
  ASSERT_NE(drift, nullptr);
  EXPECT_EQ(drift->verdict, Verdict::kRegression);
  EXPECT_NE(drift->detail.find("over the last 20 points"), std::string::npos) << drift->detail;
  // The same twenty commits flat: no drift.
  EXPECT_EQ(Find(Check(Series(noise, 2), Point(20, 1.0, 77)), "drift"), nullptr);
}

// 200 commits at 5% noise: checked one by one as CI would (a suspect measured again), none fails.
TEST(Check, NoAlarmOverTwoHundredFlatPointsAtFivePercentNoise) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const auto levels = Noisy(200, 2.0, 0.05, seed);
    const auto series = Series(levels, seed);
    int suspects = 0;
    for (size_t i = 3; i < series.size(); ++i) {
      const std::vector<HistoryPoint> history(series.begin(), series.begin() + i);
      suspects += Worst(Check(history, series[i])) == Verdict::kSuspect;
      EXPECT_NE(AsCiWould(history, series[i], Noisy(1, 2.0, 0.05, seed * 7919 + i)[0], seed + i),
                Verdict::kRegression)
          << "seed " << seed << " point " << i;
    }
    EXPECT_LE(suspects, 4) << "seed " << seed;
  }
}

// Counts compare at the seeds both points trained with; their sums give the size.
TEST(Check, ACounterChangeIsReportedWithItsSize) {
  const auto history = Series(std::vector<double>(6, 1.0), 4);
  HistoryPoint now = Point(6, 1.0, 5);
  EXPECT_EQ(Worst(Check(history, now)), Verdict::kOk);
  EXPECT_EQ(Find(Check(history, now), "counters")->detail, "the same at 5 seed(s) as at 00000060");
  for (SeedCounts& c : now.counters) c.counts["active_neurons"] += 101;  // 1102..1106
  const auto found = Check(history, now);
  const Finding* counter = Find(found, "active_neurons");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->verdict, Verdict::kRegression);
  EXPECT_NE(counter->detail.find("100.3 → 110.4 per sample (+10.1%; 5015 → 5520 in all over 5 "
                                 "seed(s))"),
            std::string::npos)
      << counter->detail;
  // Built otherwise, or at other seeds: noted, not compared.
  now.build = "other";
  EXPECT_EQ(Find(Check(history, now), "active_neurons"), nullptr);
  EXPECT_EQ(Find(Check(history, now), "counters")->verdict, Verdict::kNote);
  now.build = "b";
  for (SeedCounts& c : now.counters) c.seed += 100;
  EXPECT_EQ(Find(Check(history, now), "counters")->verdict, Verdict::kNote);
  // Two runs at one seed that counted differently: not deterministic.
  now = Point(6, 1.0, 5);
  now.counters.push_back({1, {{"active_neurons", 999}, {"samples", 10}}});
  EXPECT_EQ(Find(Check(history, now), "counters")->verdict, Verdict::kRegression);
}

// A counter only one side counted is not a change of the engine's work: noted, not compared.
TEST(Check, ACounterCountedFromACommitOnIsNoted) {
  const auto history = Series(std::vector<double>(6, 1.0), 4);
  HistoryPoint now = Point(6, 1.0, 5);
  for (SeedCounts& c : now.counters) c.counts["bucket_ids_read"] = 480;
  const auto found = Check(history, now);
  EXPECT_EQ(Worst(found), Verdict::kNote);
  ASSERT_NE(Find(found, "bucket_ids_read"), nullptr);
  EXPECT_EQ(Find(found, "bucket_ids_read")->detail,
            "counted from here on (00000060 did not count it)");
  EXPECT_EQ(Find(found, "counters")->verdict, Verdict::kOk);  // active_neurons held
}

TEST(Check, AnAnnotatedCommitStartsANewSegment) {
  const auto history = Series(std::vector<double>(6, 1.0), 5);
  HistoryPoint now = Point(6, 1.5, 6);
  for (SeedCounts& c : now.counters) c.counts["active_neurons"] *= 2;
  EXPECT_EQ(Worst(Check(history, now)), Verdict::kRegression);
  const std::vector<Annotation> accepted = {{now.commit.substr(0, 7), "d/*", "wider layer", ""}};
  const auto found = Check(history, now, accepted);
  EXPECT_EQ(Worst(found), Verdict::kNote);
  EXPECT_NE(found[0].detail.find("wider layer"), std::string::npos);
  EXPECT_EQ(Worst(Check(history, now, {{now.commit.substr(0, 7), "x/*", "", ""}})),
            Verdict::kRegression);
}

TEST(Check, MetricDropsFailedCellsAndNewSettings) {
  const auto history = Series(std::vector<double>(6, 1.0), 6);
  HistoryPoint now = Point(6, 1.0, 7);
  now.metric = std::vector<double>(5, 0.46);
  EXPECT_EQ(Find(Check(history, now), "metric")->verdict, Verdict::kRegression);
  now.metric = std::vector<double>(5, 0.48);
  EXPECT_EQ(Find(Check(history, now), "metric")->verdict, Verdict::kOk);
  now.status = "timeout";
  now.reason = "repeat 2: over 120 s";
  EXPECT_EQ(Find(Check(history, now), "status")->verdict, Verdict::kRegression);
  now.status = "ok";
  now.settings_hash = "t";
  EXPECT_EQ(Worst(Check(history, now)), Verdict::kNew);
}

// Another machine's series: times are noted, never gated; metrics still are.
TEST(Check, OtherMachinesTimesAreNotedNotGated) {
  const auto history = Series(Noisy(12, 1.0, 0.03, 8), 9);
  const auto found = CheckCell("d/e/t2", history, Point(12, 2.0, 10), Measure::kSeconds, false, {},
                               CheckOptions{});
  EXPECT_EQ(Find(found, "seconds")->verdict, Verdict::kNote);
  EXPECT_EQ(Find(found, "drift"), nullptr);
}

}  // namespace
}  // namespace sparsebench
