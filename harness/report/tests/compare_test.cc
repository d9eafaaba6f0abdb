#include "harness/report/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"
#include "harness/record/csv.h"
#include "harness/record/rows.h"

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
  return Compare(o, BuiltinEngines());
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

std::string Edit(const testing::TempDir& dir, const std::string& from, const std::string& name,
                 const std::function<void(std::vector<std::vector<std::string>>&)>& edit) {
  auto table = ReadCsv(from);
  edit(table);
  std::string text;
  for (const auto& row : table) text += CsvLine(row);
  const std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

size_t Column(const std::vector<std::vector<std::string>>& table, const std::string& name) {
  return static_cast<size_t>(std::find(table[0].begin(), table[0].end(), name) - table[0].begin());
}

// Issue 13: the CI gate said "no regression" when the current run's ok rows had no
// metric_value or train_seconds, or a NaN metric: those values dropped out of the medians.
TEST(Compare, OkRowsWithoutFiniteTimeOrMetricAreRegressions) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1, 1, 1}, 0.5);
  const auto same = Results(dir, "b.csv", "m", {1, 1, 1}, 0.5);
  ASSERT_FALSE(RunCompare(base, same).regression);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"metric_value", ""}, {"metric_value", "nan"}, {"train_seconds", ""}, {"train_seconds", "inf"}, {"metric_value", "-nan"}};
  for (const auto& [column, value] : cases) {
    const std::string broken = Edit(dir, same, "c.csv", [&](auto& table) { table[1][Column(table, column)] = value; });
    const CompareResult r = RunCompare(base, broken);
    EXPECT_TRUE(r.regression) << column << " = '" << value << "'\n" << r.markdown;
    EXPECT_NE(r.markdown.find("is ok but has no finite " + column), std::string::npos) << r.markdown;
    // The same gap in the baseline: nothing sound to compare against.
    EXPECT_TRUE(RunCompare(broken, same).regression) << column << " = '" << value << "' in the baseline";
  }
  // A current run without the columns at all.
  const std::string no_columns = Edit(dir, same, "d.csv", [&](auto& table) {
    for (const char* column : {"metric_value", "train_seconds"}) {
      const size_t at = Column(table, column);
      for (auto& row : table) row.erase(row.begin() + static_cast<std::ptrdiff_t>(at));
    }
  });
  EXPECT_TRUE(RunCompare(base, no_columns).regression);
}

// Issue 13: an empty baseline compared nothing and passed; so did an empty current run when
// the baseline's cells had all failed.
TEST(Compare, NothingToCompareIsNeverANoRegression) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1, 1}, 0.5);
  const std::string empty = dir.file("empty.csv");
  std::ofstream(empty) << CsvLine(ResultColumns());
  EXPECT_THROW(RunCompare(empty, base), DataError);
  const CompareResult none = RunCompare(base, empty);
  EXPECT_TRUE(none.regression) << none.markdown;
  EXPECT_NE(none.markdown.find("The current run has no result rows"), std::string::npos) << none.markdown;
  const std::string failed = Edit(dir, base, "failed.csv", [&](auto& table) {
    for (size_t r = 1; r < table.size(); ++r) table[r][Column(table, "status")] = "crash";
  });
  const CompareResult all_failed = RunCompare(failed, base);
  EXPECT_TRUE(all_failed.regression) << all_failed.markdown;
  EXPECT_NE(all_failed.markdown.find("No baseline cell ended ok"), std::string::npos) << all_failed.markdown;
  EXPECT_THROW(RunCompare(dir.file("missing.csv"), base), DataError);
  EXPECT_THROW(RunCompare(dir.path(), base), DataError);  // a directory that is not a run
}

// README: "a cell that was ok and is not always counts", also when other repeats of it are ok;
// and across machines a cell whose run has no reference time cannot pass on timing.
TEST(Compare, OneFailedRepeatOrAMissingReferenceIsARegression) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1, 1, 1}, 0.5);
  const auto same = Results(dir, "b.csv", "m", {1, 1, 1}, 0.5);
  const std::string one_crash = Edit(dir, same, "c.csv", [&](auto& table) { table[3][Column(table, "status")] = "timeout"; });
  const CompareResult r = RunCompare(base, one_crash);
  EXPECT_TRUE(r.regression) << r.markdown;
  EXPECT_NE(r.markdown.find("a repeat ended timeout"), std::string::npos) << r.markdown;
  // Another machine, and no blas rows to divide by.
  const auto other = Results(dir, "d.csv", "fast", {1, 1, 1}, 0.5);
  const std::string no_reference = Edit(dir, other, "e.csv", [&](auto& table) {
    std::vector<std::vector<std::string>> kept;
    for (const auto& row : table) {
      if (row[Column(table, "engine")] != "blas") kept.push_back(row);
    }
    table = kept;
  });
  const CompareResult across = RunCompare(base, no_reference);
  EXPECT_TRUE(across.regression) << across.markdown;
  EXPECT_NE(across.markdown.find("timing cannot be compared"), std::string::npos) << across.markdown;
}

TEST(Compare, ResultsCsvWithBadFieldsNamesTheLine) {
  testing::TempDir dir;
  const auto base = Results(dir, "a.csv", "m", {1, 1}, 0.5);
  const std::string bad = Edit(dir, base, "b.csv", [&](auto& table) { table[2][Column(table, "threads")] = "two"; });
  try {
    RunCompare(base, bad);
    ADD_FAILURE() << "accepted threads = two";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), bad);
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("'threads' must be a number"), std::string::npos) << e.what();
  }
  const std::string headless = Edit(dir, base, "c.csv", [&](auto& table) { table[0][Column(table, "status")] = "state"; });
  EXPECT_THROW(RunCompare(base, headless), DataError);
}

}  // namespace
}  // namespace sparsebench
