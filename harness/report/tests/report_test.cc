// `sparsebench report` on run directories it did not write itself: hand-edited, old, or
// crafted cell files and contexts.
#include "harness/report/report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"
#include "harness/proc/subprocess.h"
#include "harness/record/results_csv.h"
#include "harness/record/rows.h"
#include "harness/report/tests/report_fixture.h"

namespace sparsebench {
namespace {

using namespace report_fixture;

// Issue 13: a curve point with fewer than three numbers was read out of bounds (the plot took
// point[2] unchecked); fields of the wrong type threw nlohmann's type_error without a file.
TEST(Report, MalformedCellFilesAreRefusedNamingTheFile) {
  testing::TempDir dir;
  nlohmann::json short_point = Cell("d", "sparse", 1);
  short_point["curve"] = {{0.5, 0.5}};
  nlohmann::json text_number = Cell("d", "sparse", 1);
  text_number["threads"] = "two";
  nlohmann::json number_text = Cell("d", "sparse", 1);
  number_text["status"] = 1;
  nlohmann::json huge_repeat = Cell("d", "sparse", 1);
  huge_repeat["repeat"] = 1e300;
  nlohmann::json bad_rule = Cell("d", "sparse", 1);
  bad_rule["target_rule"] = "soon";
  nlohmann::json null_status = Cell("d", "sparse", 1);
  null_status["status"] = nullptr;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {short_point.dump(), "a curve point must be a list [seconds, epoch, value, ...]"},
      {text_number.dump(), "'threads' must be a number"},
      {number_text.dump(), "'status' must be a string"},
      {huge_repeat.dump(), "'repeat' must be a whole number"},
      {bad_rule.dump(), "target: 'soon' is not a number"},
      {null_status.dump(), "'status' must be a string"},
      {"[1, 2]", "not a JSON object"},
      {"{\"status\": \"ok\",", "bad JSON"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string run =
        RunDir(dir, "run" + std::to_string(i), {Cell("d", "blas", 1).dump(), cases[i].first});
    try {
      WriteReport(Options(run, dir.file("out" + std::to_string(i)), /*plots=*/true), BuiltinEngines());
      ADD_FAILURE() << "accepted " << cases[i].first;
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), run + "/cells/c1.json");
      EXPECT_NE(std::string(e.what()).find(cases[i].second), std::string::npos) << e.what();
    }
  }
}

// Found by the run_dirs fuzzer: a cell file without `threads` (or with a null number) was
// accepted, but the results.csv written from it was refused when read back, so `compare`
// failed on the run's own results.csv.
TEST(Report, ResultsCsvReadsBackWhatTheCellFilesHeld) {
  testing::TempDir dir;
  nlohmann::json no_threads = Cell("d", "sparse", 1);
  no_threads.erase("threads");
  nlohmann::json null_metric = Cell("d", "blas", 1);
  null_metric["metric_value"] = nullptr;
  const std::string run = RunDir(dir, "run", {no_threads.dump(), null_metric.dump()});
  const std::vector<CellResult> rows = LoadRows({run}, BuiltinEngines());
  WriteResultFiles(rows, run);
  const std::vector<CellResult> back = ReadResultsCsv(run + "/results.csv");
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(back[i].threads.has_value(), rows[i].threads.has_value()) << i;
    EXPECT_EQ(back[i].name, rows[i].name);
  }
  EXPECT_FALSE(back[1].metric_value);
  EXPECT_EQ(ResultsCsvText(back), ResultsCsvText(rows));
}

// Issue 13: a context.json without price_per_hour tripped an assertion in nlohmann-json
// (operator[] on a missing key of a const object); wrong types threw type_error.
TEST(Report, ContextsWithMissingOrOddFieldsStillMakeAReport) {
  testing::TempDir dir;
  const std::vector<std::string> contexts = {
      R"({"cpu_model": "old machine", "cores": 2})",
      R"({"cpu_model": 7, "cores": "two", "memory_gb": null, "price_per_hour": "cheap", "git_commit": []})",
      R"([{"cpu_model": "from a report", "price_per_hour": 1.5}, 3])",
      "not json",
  };
  for (size_t i = 0; i < contexts.size(); ++i) {
    const std::string run =
        RunDir(dir, "run" + std::to_string(i), {Cell("d", "sparse", 1).dump()}, contexts[i]);
    const std::string out = dir.file("out" + std::to_string(i));
    WriteReport(Options(run, out), BuiltinEngines());
    const std::string md = Read(out + "/report.md");
    EXPECT_NE(md.find("`sparse`"), std::string::npos) << md;
    if (i == 0) {
      EXPECT_NE(
          md.find("| old machine, 2 cores, — GiB | — (not recorded) | ? |  | — · — | — | ? | — |"),
          std::string::npos)
          << md;
    }
    if (i == 2) {
      EXPECT_NE(
          md.find(
              "| from a report, — cores, — GiB | — (not recorded) | ? |  | — · — | — | ? | 1.5 |"),
          std::string::npos)
          << md;
    }
  }
}

// Issue 13: the dataset name was pasted into the gnuplot script, so a name with a quote and a
// newline ran `system "..."` as the user. Names now reach gnuplot as data only.
TEST(Report, NamesNeverBecomeGnuplotCommands) {
  if (FindExecutable("gnuplot").empty()) GTEST_SKIP() << "gnuplot not installed";
  testing::TempDir dir;
  const std::string marker = dir.file("pwned");
  const std::string evil = "x'\nsystem \"touch " + marker + "\"\nset title '";
  const std::string run = RunDir(dir, "run",
                                 {Cell(evil, "sparse\"\n!touch " + marker, 1).dump(),
                                  Cell("a b", "blas", 1).dump(), Cell("a_b", "blas", 1).dump()});
  const std::string out = dir.file("out");
  WriteReport(Options(run, out, /*plots=*/true), BuiltinEngines());
  EXPECT_FALSE(fs::exists(marker)) << "gnuplot ran a command from a dataset name";
  EXPECT_EQ(Read(out + "/plots/plot.gp").find("touch"), std::string::npos);
  // Each dataset's plots under its own index: "a b" and "a_b" share a slug, not files.
  for (const char* stem : {"1-x__system__touch_", "2-a_b", "3-a_b"}) {
    bool found = false;
    for (const auto& entry : fs::directory_iterator(out + "/plots")) {
      const std::string name = entry.path().filename().string();
      found |= name.starts_with(stem) && name.ends_with("-cost.png");
    }
    EXPECT_TRUE(found) << stem << "\n" << Read(out + "/report.md");
  }
  EXPECT_TRUE(fs::exists(out + "/plots/2-a_b-curves.png")) << Read(out + "/plots/2-a_b.gp.err");
  EXPECT_EQ(Read(out + "/plots/2-a_b.gp.err"), "");
  // Every file went through a temporary one and a rename: none is left over.
  for (const fs::path& where : {fs::path(out), fs::path(out) / "plots"}) {
    for (const auto& entry : fs::directory_iterator(where)) {
      EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
    }
  }
}

}  // namespace
}  // namespace sparsebench

namespace sparsebench {
namespace {

using namespace report_fixture;

// The report links the history page, relative to itself, where the page exists; no line
// where it does not.
TEST(Report, LinksTheHistoryPageWhereItExists) {
  testing::TempDir dir;
  const std::string run = RunDir(dir, "run", {Cell("d", "sparse", 1).dump()}, "{}");
  ReportOptions options = Options(run, dir.file("out"));
  options.history_page = dir.file("history/index.html");
  WriteReport(options, BuiltinEngines());
  EXPECT_EQ(Read(dir.file("out/report.md")).find("history page"), std::string::npos);
  std::filesystem::create_directories(dir.file("history"));
  std::ofstream(options.history_page) << "<!doctype html>";
  WriteReport(options, BuiltinEngines());
  EXPECT_NE(Read(dir.file("out/report.md")).find("[the history page](../history/index.html)"),
            std::string::npos)
      << Read(dir.file("out/report.md"));
}

}  // namespace
}  // namespace sparsebench
