// Ratios between rows: only within one machine and thread count, a lower bound where a dense
// baseline never reached the target, and each engine's metric at the moment the first one did.
#include "harness/report/summary.h"

#include <gtest/gtest.h>

#include "harness/cli/engines.h"
#include "harness/record/cell_json.h"

namespace sparsebench {
namespace {

// An ok row of `engine` on machine `machine`; time to target `ttt` (NaN: never reached).
nlohmann::json Row(const std::string& engine, const std::string& spec, const std::string& machine,
                   double ttt, double train_seconds,
                   nlohmann::json curve = nlohmann::json::array()) {
  return {
      {"dataset", "d"},
      {"engine", engine},
      {"spec", spec},
      {"machine", machine},
      {"threads", 2},
      {"status", "ok"},
      {"metric", "p_at_1"},
      {"metric_value", 0.2},
      {"target", 0.15},
      {"target_rule", "dense-1pt"},
      {"train_seconds", train_seconds},
      {"time_to_target_seconds", std::isnan(ttt) ? nlohmann::json(nullptr) : nlohmann::json(ttt)},
      {"curve", curve}};
}

// Rows as their cell files hold them.
std::vector<DatasetGroups> GroupJson(const std::vector<nlohmann::json>& rows) {
  std::vector<CellResult> cells;
  for (const nlohmann::json& row : rows) cells.push_back(FromJson(row, "row", 0));
  return GroupRows(cells, BuiltinEngines());
}

Curve ToCurve(const nlohmann::json& points) {
  return FromJson({{"curve", points}}, "curve", 0).curve;
}

Group Find(const std::vector<DatasetGroups>& d, const std::string& engine,
           const std::string& machine = "A") {
  for (const Group& g : d.at(0).groups) {
    if (g.engine == engine && g.machine == machine) return g;
  }
  throw std::logic_error("no group " + engine);
}

TEST(Speedup, IsARatioOnlyWithinOneMachine) {
  std::vector<nlohmann::json> rows = {Row("sparse", "sparse", "A", 10, 50),
                                      Row("blas", "blas", "B", 100, 200)};
  const Group& alone = Find(GroupJson(rows), "sparse");
  EXPECT_TRUE(std::isnan(alone.speedup));
  EXPECT_EQ(alone.speedup_note, "different machines");

  rows.push_back(Row("torch", "torch", "A", 50, 200));
  const auto groups = GroupJson(rows);
  EXPECT_DOUBLE_EQ(Find(groups, "sparse").speedup, 5.0);  // not 10: blas ran elsewhere
  EXPECT_FALSE(Find(groups, "sparse").speedup_lower_bound);
  EXPECT_DOUBLE_EQ(Find(groups, "blas", "B").speedup, 1.0);
}

TEST(Speedup, IsALowerBoundWhenADenseBaselineStoppedShortOfTheTarget) {
  // Its budget stopped blas at 2,400 s short of the target: its time to target lies beyond.
  std::vector<nlohmann::json> rows = {Row("sparse", "sparse", "A", 100, 500),
                                      Row("blas", "blas", "A", NAN, 2400)};
  const Group& finished = Find(GroupJson(rows), "sparse");  // all its epochs: it never gets there
  EXPECT_TRUE(std::isnan(finished.speedup));
  EXPECT_EQ(finished.speedup_note, "");
  rows[1]["stopped_by"] = "budget";
  const Group& bound = Find(GroupJson(rows), "sparse");
  EXPECT_DOUBLE_EQ(bound.speedup, 24.0);
  EXPECT_TRUE(bound.speedup_lower_bound);

  rows.push_back(Row("torch", "torch", "A", 1000, 2400));  // reached, before blas's 2,400 s
  const Group& exact = Find(GroupJson(rows), "sparse");
  EXPECT_DOUBLE_EQ(exact.speedup, 10.0);
  EXPECT_FALSE(exact.speedup_lower_bound);

  rows.back() = Row("torch", "torch", "A", 3000, 3600);  // reached, but after blas's 2,400 s
  rows.back()["stopped_by"] = "budget";
  const Group& still_bound = Find(GroupJson(rows), "sparse");
  EXPECT_DOUBLE_EQ(still_bound.speedup, 24.0);
  EXPECT_TRUE(still_bound.speedup_lower_bound);
}

TEST(EqualTime, EachEngineIsReadAtTheMomentTheFirstReachedTheTarget) {
  const nlohmann::json sparse = {{40.0, 1.0, 0.1}, {100.0, 2.0, 0.16}};
  const nlohmann::json blas = {{60.0, 0.1, 0.05}, {120.0, 0.2, 0.09}};
  const nlohmann::json late = {{150.0, 0.1, 0.12}};
  const auto groups = GroupJson(
      {Row("sparse", "sparse", "A", 100, 200, sparse), Row("blas", "blas", "A", 2000, 2400, blas),
       Row("torch", "torch", "A", NAN, 2400, late), Row("other", "blas", "B", 5, 10)});
  for (const char* engine : {"sparse", "blas", "torch"})
    EXPECT_DOUBLE_EQ(Find(groups, engine).equal_time_seconds, 100.0);
  EXPECT_DOUBLE_EQ(Find(groups, "sparse").metric_at_equal_time, 0.16);
  EXPECT_DOUBLE_EQ(Find(groups, "blas").metric_at_equal_time, 0.05);
  EXPECT_TRUE(std::isnan(Find(groups, "torch").metric_at_equal_time));   // no point that early
  EXPECT_DOUBLE_EQ(Find(groups, "other", "B").equal_time_seconds, 5.0);  // its own machine's
}

TEST(EqualTime, MetricAtTakesTheLastPointAtOrBefore) {
  const Curve curve = ToCurve({{1.0, 0.5, 0.1}, {2.0, 1.0, 0.2}, {3.0, 1.5, 0.3}});
  EXPECT_TRUE(std::isnan(MetricAt(curve, 0.5)));
  EXPECT_DOUBLE_EQ(MetricAt(curve, 2.0), 0.2);
  EXPECT_DOUBLE_EQ(MetricAt(curve, 2.9), 0.2);
  EXPECT_DOUBLE_EQ(MetricAt(curve, 99), 0.3);
}

}  // namespace
}  // namespace sparsebench
