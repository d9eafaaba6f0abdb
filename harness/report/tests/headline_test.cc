// Each dataset's headline states its conditions: the row that set the target and how its
// training ended, and only a target a dense row converged to is called fair.
#include "harness/report/headline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"
#include "harness/report/report.h"

namespace sparsebench {
namespace {

namespace fs = std::filesystem;

nlohmann::json Row(const std::string& engine, const std::string& spec, int repeat, double metric,
                   double seconds, const nlohmann::json& curve) {
  return {{"cell_id", "d/" + engine + "/t2/r" + std::to_string(repeat)},
          {"cell_index", repeat},
          {"dataset", "d"},
          {"engine", engine},
          {"spec", spec},
          {"threads", 2},
          {"repeat", repeat},
          {"status", "ok"},
          {"machine", "m [0123abcd]"},
          {"metric", "p_at_1"},
          {"metric_value", metric},
          {"train_seconds", seconds},
          {"epochs_trained", 2.0},
          {"target_rule", "dense-1pt"},
          {"curve", curve}};
}

std::string Report(const std::vector<nlohmann::json>& rows) {
  testing::TempDir dir;
  const fs::path run = fs::path(dir.path()) / "run";
  fs::create_directories(run / "cells");
  for (size_t i = 0; i < rows.size(); ++i)
    std::ofstream(run / "cells" / ("c" + std::to_string(i) + ".json")) << rows[i].dump();
  std::ofstream(run / "context.json") << R"({"cpu_model": "x", "cores": 2})";
  ReportOptions o;
  o.run_dirs = {run.string()};
  o.out_dir = dir.file("out");
  o.plots = false;
  WriteReport(o, BuiltinEngines());
  std::ifstream in(dir.file("out") + "/report.md");
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Our engine reaches 0.06 at 10 s and ends at 0.16; blas, stopped by its budget at 100 s,
// ends at 0.07 (target 0.06), reached at 90 s.
std::vector<nlohmann::json> EarlyTarget() {
  nlohmann::json blas =
      Row("blas", "blas", 1, 0.07, 100, {{90.0, 0.5, 0.065}, {100.0, 0.6, 0.072}});
  blas["stopped_by"] = "budget";
  blas["train_budget_seconds"] = 100;
  blas["epochs_trained"] = 0.6;
  return {Row("sparse", "sparse:out_sparsity=0.01", 1, 0.16, 40,
              {{10.0, 1.0, 0.061}, {40.0, 4.0, 0.158}}),
          blas};
}

TEST(Headline, ATargetSetByABudgetStoppedRowIsCalledEarlyNotFair) {
  const std::string md = Report(EarlyTarget());
  EXPECT_NE(md.find("**Headline, d:** `sparse` reaches p_at_1 0.0600 in 10 s; the fastest dense "
                    "baseline, `blas`, in "
                    "90 s"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Speed-up **9.0×**"), std::string::npos) << md;
  EXPECT_NE(md.find("its training budget stopped it after 100 s, at epoch 0.60"), std::string::npos)
      << md;
  EXPECT_NE(md.find("measured at that early target, 38% of `sparse`'s own final p_at_1 (0.1600)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("when `blas`'s budget ended (100 s of training), `sparse` had p_at_1 0.1580 "
                    "and `blas` 0.0720"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("fair to the dense side"), std::string::npos) << md;
  EXPECT_NE(md.find("So the target is an early accuracy, not a converged one"), std::string::npos)
      << md;
}

TEST(Headline, OnlyATargetADenseRowConvergedToIsCalledFair) {
  std::vector<nlohmann::json> rows = EarlyTarget();
  rows[1].erase("stopped_by");
  rows[1].erase("train_budget_seconds");
  const std::string fixed = Report(rows);
  EXPECT_EQ(fixed.find("fair to the dense side"), std::string::npos) << fixed;
  EXPECT_NE(fixed.find("it ran a fixed 0.60 epochs (100 s)). The target is not shown to be a "
                       "converged accuracy."),
            std::string::npos)
      << fixed;
  EXPECT_NE(fixed.find("one repeat each, so no spread is measured"), std::string::npos) << fixed;

  rows[1]["stopped_by"] = "plateau";
  rows[1]["patience_epochs"] = 2;
  rows[1]["holdout_rows"] = 500;
  const std::string converged = Report(rows);
  EXPECT_NE(converged.find("fair to the dense side"), std::string::npos) << converged;
  EXPECT_NE(
      converged.find(
          "the plateau rule ended it at epoch 0.60 (100 s): 2 epochs without a new best on 500 "
          "held-out training rows"),
      std::string::npos)
      << converged;
  EXPECT_EQ(converged.find("not shown to be a converged"), std::string::npos) << converged;
}

TEST(Headline, RepeatsGiveTheMedianAndItsRange) {
  std::vector<nlohmann::json> rows = EarlyTarget();
  nlohmann::json second = rows[0], third = rows[0];
  second["repeat"] = 2, second["cell_id"] = "d/sparse/t2/r2",
  second["curve"] = {{12.0, 1.0, 0.061}, {40.0, 4.0, 0.158}};
  third["repeat"] = 3, third["cell_id"] = "d/sparse/t2/r3",
  third["curve"] = {{15.0, 1.0, 0.061}, {40.0, 4.0, 0.158}};
  rows.push_back(second);
  rows.push_back(third);
  const std::string md = Report(rows);
  EXPECT_NE(md.find("`sparse` reaches p_at_1 0.0600 in 12 [10–15] s"), std::string::npos) << md;
  EXPECT_NE(md.find("3 repeats of `sparse`, 1 repeat of `blas`"), std::string::npos) << md;
  EXPECT_NE(md.find("Speed-up **7.5×** [6.0×–9.0× pairing the extreme repeats]"), std::string::npos)
      << md;
}

// The curves score one fixed sample, so the repeats' spread leaves out its error: the headline
// moves the target by one standard error each way (0.06 on 400 rows: ±0.0119).
TEST(Headline, TheCurveSamplesErrorMovesTheTargetBothWays) {
  std::vector<nlohmann::json> rows = EarlyTarget();
  for (nlohmann::json& row : rows) row["curve_sample_rows"] = 400;
  rows[0]["curve"] = {
      {10.0, 1.0, 0.05}, {20.0, 2.0, 0.061}, {30.0, 3.0, 0.072}, {40.0, 4.0, 0.158}};
  rows[1]["curve"] = {{60.0, 0.4, 0.05}, {90.0, 0.5, 0.065}, {100.0, 0.6, 0.072}};
  const std::string md = Report(rows);
  EXPECT_NE(md.find("Curve points score one fixed sample of 400 test rows, the same for every "
                    "engine and repeat, so the repeats' spread leaves out the sample's own error, "
                    "±0.0119 at the target (one standard error); with the target moved by it, to "
                    "p_at_1 0.0481 `sparse` takes 10 s and `blas` 60 s (6.0×); to p_at_1 0.0719 "
                    "`sparse` takes 30 s and `blas` 100 s (3.3×)."),
            std::string::npos)
      << md;

  nlohmann::json again = Row("sparse", "sparse:out_sparsity=0.01", 2, 0.16, 40,
                             {{20.0, 2.0, 0.05}, {50.0, 5.0, 0.158}});
  again["curve_sample_rows"] = 400;
  rows.push_back(again);
  EXPECT_NE(Report(rows).find("to p_at_1 0.0481 `sparse` takes 15 [10–20] s and `blas` 60 s "
                              "(4.0×); to p_at_1 0.0719 `sparse` takes 40 [30–50] s"),
            std::string::npos)
      << Report(rows);
  again["repeat"] = 3, again["cell_id"] = "d/sparse/t2/r3";
  again["curve"] = {{20.0, 2.0, 0.05}, {60.0, 6.0, 0.065}};
  rows.push_back(again);
  EXPECT_NE(Report(rows).find("to p_at_1 0.0719 `sparse` takes 50 [30–not reached] s and `blas` "
                              "100 s (2.0×)."),
            std::string::npos)
      << Report(rows);
  rows.resize(2);

  rows[1]["curve"] = {{60.0, 0.4, 0.05}, {90.0, 0.5, 0.065}};
  EXPECT_NE(Report(rows).find("`sparse` takes 30 s and `blas` not reached."), std::string::npos);

  for (nlohmann::json& row : rows) row.erase("curve_sample_rows");
  EXPECT_EQ(Report(rows).find("Curve points score one fixed sample"), std::string::npos);
}

TEST(Headline, AnEngineThatNeverReachesTheTargetSaysSoWithEqualTimeValues) {
  std::vector<nlohmann::json> rows = EarlyTarget();
  rows[0]["metric_value"] = 0.05;
  rows[0]["curve"] = {{10.0, 1.0, 0.03}, {40.0, 4.0, 0.05}};
  const std::string md = Report(rows);
  EXPECT_NE(md.find("`sparse` does **not** reach p_at_1 0.0600: its final p_at_1 is 0.0500"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("when `blas` reached the target (90 s of training), `sparse` had p_at_1 0.0500 "
                    "and `blas` 0.0650"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("Speed-up **"), std::string::npos) << md;
}

}  // namespace
}  // namespace sparsebench
