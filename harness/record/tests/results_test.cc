// The result record: every column survives each file format, a run keeps its results in
// memory (no cell file read again, results.csv rewritten at a bounded cost per cell), and run
// directories written before the record was typed still read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"
#include "harness/record/cell_json.h"
#include "harness/record/csv.h"
#include "harness/record/results_csv.h"
#include "harness/record/rows.h"
#include "harness/report/compare.h"
#include "harness/report/report.h"
#include "harness/run/run_results.h"

namespace sparsebench {
namespace {
namespace fs = std::filesystem;

// A record with a distinct value in every column.
CellResult Full() {
  CellResult r;
  int i = 0;
  for (const Column& c : Columns()) {
    ++i;
    std::visit(
        [&](auto member) {
          using T = std::decay_t<decltype(r.*member)>;
          if constexpr (std::is_same_v<T, std::string>) {
            r.*member = "text, \"" + std::to_string(i) + "\"";
          } else if constexpr (std::is_same_v<T, std::optional<double>>) {
            r.*member = i + 0.25;
          } else if constexpr (std::is_enum_v<T>) {
            r.*member = T{};  // set below
          } else {
            r.*member = i;
          }
        },
        c.member);
  }
  r.status = CellStatus::kOk;
  r.stopped_by = StopReason::kPlateau;
  r.target_rule = "dense-1pt";
  r.curve = {{0.5, 1.0, 0.25, std::nullopt, 0.75}, {1.5, 2.0, 0.5, 0.125, std::nullopt}};
  r.epoch_details = {{{"epoch", 1}, {"seconds_gemm", 0.5}}};
  r.context = {{"omp_threads", "2"}};
  return r;
}

std::vector<std::string> Texts(const CellResult& r, bool csv_only) {
  std::vector<std::string> texts;
  for (const Column& c : Columns()) {
    if (c.in_csv || !csv_only) texts.push_back(std::string(c.name) + "=" + ColumnText(r, c));
  }
  return texts;
}

TEST(ResultRecord, EveryColumnSurvivesEachFormat) {
  const CellResult r = Full();
  const CellResult json = FromJson(ToJson(r), "cell", 1);
  EXPECT_EQ(Texts(json, false), Texts(r, false));
  EXPECT_EQ(ToJson(json), ToJson(r));

  testing::TempDir dir;
  WriteResultFiles({r}, dir.path());
  std::vector<CellResult> back = ReadResultsCsv(dir.file("results.csv"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(Texts(back[0], true), Texts(r, true));
  ReadCurvesCsv(dir.file("curves.csv"), back);
  EXPECT_EQ(ToJson(back[0])["curve"], ToJson(r)["curve"]);
  EXPECT_EQ(CurvesCsvText(back), CurvesCsvText({r}));
}

// A status and a stop reason are one of the texts of their table, read back as written; a file
// naming another is refused with the file and the texts it may hold.
TEST(ResultRecord, StatusAndStopReasonAreOneOfTheirTexts) {
  for (CellStatus s :
       {CellStatus::kNone, CellStatus::kOk, CellStatus::kError, CellStatus::kTimeout,
        CellStatus::kOom, CellStatus::kCrash, CellStatus::kInvalid, CellStatus::kProtocolError})
    EXPECT_EQ(ParseCellStatus(Text(s)), s) << s;
  for (StopReason s : {StopReason::kEpochs, StopReason::kBudget, StopReason::kPlateau})
    EXPECT_EQ(ParseStopReason(Text(s)), s) << s;
  EXPECT_EQ(Text(CellStatus::kProtocolError), "protocol_error");
  EXPECT_FALSE(ParseCellStatus("OK"));
  try {
    ParseCellFile(R"({"status":"fine"})", "cells/x.json");
    ADD_FAILURE() << "a status of no table was read";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("cells/x.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'status' is 'fine', not one of ok, error, timeout"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ParseCellFile(R"({"status":"ok","stopped_by":"tired"})", "c.json"), DataError);
  const std::string csv = "dataset,engine,threads,status,stopped_by\nd,e,1,ok,stalled\n";
  EXPECT_THROW(ParseResultsCsv(ParseCsv(csv, "results.csv"), "results.csv"), DataError);
}

TEST(ResultRecord, TimeToTargetIsTheFirstPointAtTheTarget) {
  CellResult r;
  r.status = CellStatus::kOk;
  r.price_per_hour = 3.6;
  r.train_seconds = 100;
  r.curve = {{10.0, 1.0, 0.2}, {20.0, 2.0, std::nullopt}, {30.0, 3.0, 0.4}, {40.0, 4.0, 0.5}};
  SetTarget(r, 0.35);
  EXPECT_EQ(r.target, 0.35);
  EXPECT_EQ(r.time_to_target_seconds, 30.0);
  EXPECT_DOUBLE_EQ(*r.cost_usd, 0.1);
  EXPECT_DOUBLE_EQ(*r.cost_to_target_usd, 0.03);
  SetTarget(r, 0.9);  // never reached
  EXPECT_FALSE(r.time_to_target_seconds);
  EXPECT_FALSE(r.cost_to_target_usd);
  SetTarget(r, NAN);
  EXPECT_FALSE(r.target);
  r.status = CellStatus::kCrash;
  SetCosts(r);
  EXPECT_FALSE(r.cost_usd);
}

// The old runner read every cell file back after each cell to rewrite results.csv: 2,000 cells
// read 2,001,000 files. Now nothing is read again, and results.csv is rewritten after a cell
// only while its rows are few beside the cells since its last writing, so the rows written per
// cell stay bounded however many cells there are.
TEST(RunResults, PerCellOverheadStaysFlat) {
  testing::TempDir dir;
  fs::create_directories(dir.file("run/cells"));
  constexpr size_t kCells = 2000;
  RunResults results(dir.file("run"), BuiltinEngines(), [] { return 0.0; });
  std::vector<size_t> rows_after;
  for (size_t i = 0; i < kCells; ++i) {
    CellResult r;
    r.cell_id = "d/e/t1/r" + std::to_string(i);
    r.cell_index = static_cast<int64_t>(i);
    r.dataset = "d";
    r.name = "e";
    r.threads = 1;
    r.status = CellStatus::kOk;
    results.Add("c" + std::to_string(i), r);
    rows_after.push_back(results.counts().rows_written);
  }
  EXPECT_EQ(results.counts().cell_files_read, 0u);
  EXPECT_EQ(rows_after[RunResults::kRowsPerCell - 1],
            RunResults::kRowsPerCell * (RunResults::kRowsPerCell + 1) / 2);  // every cell while few
  const size_t last = rows_after[kCells - 1] - rows_after[kCells - 1001];
  EXPECT_LE(last, 1000 * RunResults::kRowsPerCell + kCells);  // the last 1,000 cells
  EXPECT_LE(rows_after.back(), kCells * RunResults::kRowsPerCell);
  results.WriteFiles();
  EXPECT_EQ(ReadResultsCsv(dir.file("run/results.csv")).size(), kCells);

  const RunResults resumed(dir.file("run"), BuiltinEngines());  // --resume reads each cell file once
  EXPECT_EQ(resumed.counts().cell_files_read, kCells);
  EXPECT_TRUE(resumed.Finished("c1999"));
}

TEST(RunResults, AMinuteWithoutWritingRewritesTheFiles) {
  testing::TempDir dir;
  fs::create_directories(dir.file("run/cells"));
  double now = 0;
  RunResults results(dir.file("run"), BuiltinEngines(), [&] { return now; });
  CellResult r;
  r.dataset = "d";
  r.status = CellStatus::kOk;
  for (int i = 0; i < 300; ++i) results.Add("c" + std::to_string(i), r);
  const size_t writes = results.counts().writes;
  results.Add("c300", r);
  EXPECT_EQ(results.counts().writes, writes);  // 301 rows after one cell: not yet
  now = 61;
  results.Add("c301", r);
  EXPECT_EQ(results.counts().writes, writes + 1);
}

// harness/tests/data/run-before-44: cells r1 of results/baseline, written by the runner at
// 9eff651 with an older column set (no epochs_trained, train_budget_seconds, stopped_by), and
// its results.csv rows for them.
const std::string kOldRun = std::string(SPARSEBENCH_HARNESS_TEST_DATA) + "/run-before-44";

TEST(OldRunDirectories, CellsReadAsTheirResultsCsvSaid) {
  const std::vector<CellResult> cells = LoadRows({kOldRun}, BuiltinEngines());
  const std::vector<CellResult> csv = ReadResultsCsv(kOldRun + "/results.csv");
  ASSERT_EQ(cells.size(), 9u);
  ASSERT_EQ(csv.size(), cells.size());
  const auto old_columns = ReadCsv(kOldRun + "/results.csv").at(0);
  for (size_t i = 0; i < cells.size(); ++i) {
    for (const Column& c : Columns()) {
      const std::string name(c.name);
      // The target and what follows from it come from the dense rows of all five repeats.
      if (std::find(old_columns.begin(), old_columns.end(), name) == old_columns.end() ||
          name == "target" || name == "time_to_target_seconds" || name == "cost_to_target_usd") {
        continue;
      }
      EXPECT_EQ(ColumnText(cells[i], c), ColumnText(csv[i], c)) << csv[i].cell_id << " " << name;
    }
    EXPECT_FALSE(csv[i].epochs_trained);  // a column it did not have
    EXPECT_FALSE(cells[i].curve.empty());
  }
}

TEST(OldRunDirectories, CompareAndReportReadThem) {
  const CompareResult same =
      Compare({.baseline = kOldRun + "/results.csv", .current = kOldRun}, BuiltinEngines());
  EXPECT_FALSE(same.regression) << same.markdown;
  EXPECT_NE(same.markdown.find("| amazon670k | sparse | 2 | 1/1 |"), std::string::npos)
      << same.markdown;

  testing::TempDir dir;
  ReportOptions o;
  o.run_dirs = {kOldRun};
  o.out_dir = dir.file("report");
  o.plots = false;
  WriteReport(o, BuiltinEngines());
  std::ifstream in(dir.file("report/report.md"));
  const std::string md((std::istreambuf_iterator<char>(in)), {});
  for (const char* row : {"| `sparse` | AMD EPYC, 2 cores | 2 | 1 ok / 1 |",
                          "| `fasttext` | AMD EPYC, 2 cores | 2 | 1 ok / 1 |"}) {
    EXPECT_NE(md.find(row), std::string::npos) << row << "\n" << md;
  }
  EXPECT_EQ(ReadResultsCsv(dir.file("report/results.csv")).size(), 9u);
}

}  // namespace
}  // namespace sparsebench
