#include "harness/compare.h"

#include <gtest/gtest.h>

#include <fstream>

#include "datasets/tests/test_paths.h"
#include "harness/csv.h"
#include "harness/results.h"

namespace sparsebench {
namespace {

TEST(MannWhitney, ExactTwoSidedValues) {
  // Complete separation of 4 and 4: 2 of the 70 orderings are as extreme.
  EXPECT_NEAR(MannWhitneyP({1, 2, 3, 4}, {5, 6, 7, 8}), 2.0 / 70, 1e-12);
  EXPECT_NEAR(MannWhitneyP({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_NEAR(MannWhitneyP({1, 3, 5, 7}, {2, 4, 6, 8}), 48.0 / 70, 1e-12);  // U = 6: 24 of 70 at or below
  EXPECT_GT(MannWhitneyP({1, 1, 2, 2}, {1, 1, 2, 2}), 0.9);             // ties: normal approximation
}

// A results.csv with `repeats` rows per engine: sparse takes sparse_seconds[i], blas 10 s.
std::string Results(const testing::TempDir& dir, const std::string& name, const std::string& machine,
                    const std::vector<double>& sparse_seconds, double metric) {
  std::string text = CsvLine(ResultColumns());
  auto row = [&](const std::string& engine, int repeat, double seconds) {
    std::vector<std::string> f;
    for (const std::string& c : ResultColumns()) {
      if (c == "dataset") f.push_back("d");
      else if (c == "engine") f.push_back(engine);
      else if (c == "threads") f.push_back("2");
      else if (c == "repeat") f.push_back(std::to_string(repeat));
      else if (c == "status") f.push_back("ok");
      else if (c == "machine") f.push_back(machine);
      else if (c == "train_seconds") f.push_back(std::to_string(seconds));
      else if (c == "metric_value") f.push_back(std::to_string(metric));
      else f.push_back("");
    }
    text += CsvLine(f);
  };
  for (size_t i = 0; i < sparse_seconds.size(); ++i) {
    row("sparse", static_cast<int>(i + 1), sparse_seconds[i]);
    row("blas", static_cast<int>(i + 1), 10.0 * (machine == "fast" ? 0.5 : 1.0));
  }
  const std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

CompareResult RunCompare(const std::string& base, const std::string& current, double metric_drop = 0.5) {
  CompareOptions o;
  o.baseline = base;
  o.current = current;
  o.max_metric_drop = metric_drop;
  return Compare(o);
}

TEST(Compare, SignificantSlowdownIsARegression) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1.00, 1.01, 0.99, 1.02, 0.98}, 0.5);
  const auto slow = Results(dir, "b.csv", "m", {1.30, 1.31, 1.29, 1.32, 1.28}, 0.5);
  const auto same = Results(dir, "c.csv", "m", {1.01, 0.99, 1.00, 1.03, 0.97}, 0.5);
  EXPECT_TRUE(RunCompare(base, slow).regression) << RunCompare(base, slow).markdown;
  EXPECT_FALSE(RunCompare(base, same).regression) << RunCompare(base, same).markdown;
}

TEST(Compare, MetricDropAlwaysCounts) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1, 1, 1}, 0.50);
  const auto worse = Results(dir, "b.csv", "m", {1, 1, 1}, 0.49);
  EXPECT_TRUE(RunCompare(base, worse).regression);
  EXPECT_FALSE(RunCompare(base, worse, 2.0).regression);
}

TEST(Compare, FewRepeatsLeaveTheRatioBoundAloneAndSaySo) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1.0, 1.0}, 0.5);
  const auto slow = Results(dir, "b.csv", "m", {1.2, 1.2}, 0.5);
  const CompareResult r = RunCompare(base, slow);
  EXPECT_TRUE(r.regression);
  EXPECT_NE(r.markdown.find("ratio bound alone"), std::string::npos);
}

TEST(Compare, AcrossMachinesTimesAreRatiosToTheReference) {
  testing::TempDir dir;
  // Everything twice as fast on the other machine: sparse/blas is unchanged, no regression.
  const auto base = Results(dir, "a.csv", "slow", {2.0, 2.0, 2.0}, 0.5);
  const auto fast = Results(dir, "b.csv", "fast", {1.0, 1.0, 1.0}, 0.5);
  const CompareResult r = RunCompare(base, fast);
  EXPECT_FALSE(r.regression) << r.markdown;
  EXPECT_NE(r.markdown.find("ratios to `blas`"), std::string::npos);
}

TEST(Compare, AFailedCellIsARegression) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1.0}, 0.5);
  std::string text;
  {
    std::ifstream in(base);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t at = text.find(",ok,");
  text.replace(at, 4, ",crash,");
  const std::string broken = dir.file("b.csv");
  std::ofstream(broken) << text;
  EXPECT_TRUE(RunCompare(base, broken).regression);
}

}  // namespace
}  // namespace sparsebench
