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

namespace sparsebench {
namespace {

namespace fs = std::filesystem;

nlohmann::json Cell(const std::string& dataset, const std::string& engine, int repeat) {
  return {{"cell_id", dataset + "/" + engine + "/t2/r" + std::to_string(repeat)},
          {"cell_index", repeat},
          {"dataset", dataset},
          {"engine", engine},
          {"spec", engine},
          {"threads", 2},
          {"repeat", repeat},
          {"status", "ok"},
          {"machine", "m"},
          {"metric", "p_at_1"},
          {"metric_value", 0.5},
          {"train_seconds", 1.5},
          {"target_rule", "0.4"},
          {"curve", {{0.5, 0.5, 0.3, nullptr, nullptr}, {1.0, 1.0, 0.45, 0.9, 0.8}}}};
}

// A run directory with these cell files (raw text) and context.json.
std::string RunDir(
    const testing::TempDir& dir, const std::string& name, const std::vector<std::string>& cells,
    const std::string& context = R"({"cpu_model": "x", "cores": 2, "price_per_hour": 0.5})") {
  const fs::path run = fs::path(dir.path()) / name;
  fs::create_directories(run / "cells");
  for (size_t i = 0; i < cells.size(); ++i)
    std::ofstream(run / "cells" / ("c" + std::to_string(i) + ".json")) << cells[i];
  std::ofstream(run / "context.json") << context;
  return run.string();
}

ReportOptions Options(const std::string& run, const std::string& out, bool plots = false) {
  ReportOptions o;
  o.run_dirs = {run};
  o.out_dir = out;
  o.prices_path = std::string(SPARSEBENCH_SOURCE_DIR) + "/harness/instances.csv";
  o.published_path = std::string(SPARSEBENCH_SOURCE_DIR) + "/harness/published.csv";
  o.plots = plots;
  return o;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

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

// External rows are marked, the null engine's latency is given as the round trip they include,
// and a row that does not beat the null engine is named.
TEST(Report, ExternalRowsAreMarkedAndTheNullEngineIsTheFloor) {
  testing::TempDir dir;
  nlohmann::json null = Cell("d", "null", 1), ext = Cell("d", "mine", 1),
                 weak = Cell("d", "weak", 1);
  null["spec"] = "exec:null";
  null["latency_p50_us"] = 87.0;
  null["metric_value"] = 0.1;
  ext["spec"] = "exec:/opt/mine.py,hidden=8";
  weak["spec"] = "blas";
  weak["metric_value"] = 0.1;
  const std::string run =
      RunDir(dir, "run", {null.dump(), ext.dump(), weak.dump(), Cell("d", "sparse", 1).dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("| `null` ⇄ |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `mine` ⇄ |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `sparse` |"), std::string::npos) << md;
  EXPECT_NE(md.find("one socket round trip, 87 µs p50 here"), std::string::npos) << md;
  EXPECT_NE(md.find("⚠ Not above the null engine's p_at_1 0.1000 (the test rows were not recorded"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("`weak` (0.1000, +0.0000 above it; no measured explanation is recorded)"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("`sparse` (0.5000"), std::string::npos) << md;
}

// The floor has a sampling margin: over 1,000 test rows, 0.012 against the null's 0.010 is
// within two standard errors (±0.0093) and is named; 0.05 is clear of it.
TEST(Report, TheNullFloorAllowsForSamplingError) {
  testing::TempDir dir;
  nlohmann::json null = Cell("d", "null", 1), near = Cell("d", "near", 1),
                 clear = Cell("d", "clear", 1);
  null["spec"] = "exec:null";
  null["metric_value"] = 0.010;
  near["metric_value"] = 0.012;
  clear["metric_value"] = 0.05;
  for (nlohmann::json* c : {&null, &near, &clear}) (*c)["test_rows"] = 1000;
  const std::string run = RunDir(dir, "run", {null.dump(), near.dump(), clear.dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("by more than two standard errors of the difference over 1000 test rows"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("`near` (0.0120, +0.0020 above it, margin ±0.0093;"), std::string::npos) << md;
  EXPECT_EQ(md.find("`clear` (0.0500"), std::string::npos) << md;

  near["metric_value"] = 0.03;
  const std::string all = RunDir(dir, "all", {null.dump(), near.dump(), clear.dump()});
  WriteReport(Options(all, dir.file("all-out")), BuiltinEngines());
  EXPECT_NE(Read(dir.file("all-out") + "/report.md")
                .find("Every other row beats the null engine's p_at_1 0.0100 by more than two "
                      "standard errors"),
            std::string::npos);
}

// Each row's precision is stated with its optimizer rule, and an autotuned row whose search
// finished fewer than five trials is named.
TEST(Report, RowsStatePrecisionAndABarelyTunedRowIsNamed) {
  testing::TempDir dir;
  nlohmann::json bf16 = Cell("d", "torch-bf16", 1), tuned = Cell("d", "tuned", 1),
                 wide = Cell("d", "wide", 1);
  bf16["precision"] = "bf16 autocast";
  bf16["optimizer"] = "adam";
  tuned["optimizer"] = "sgd";
  tuned["context"] = {{"autotune_finished_trials", "2"},
                      {"autotune_budget", "search 9.0 s of 8.0 s (3 trials, 2 finished)"},
                      {"fasttext_tuned_args", "-epoch 7 -lr 0.3"}};
  wide["context"] = {{"autotune_finished_trials", "7"}};
  const std::string run = RunDir(dir, "run", {bf16.dump(), tuned.dump(), wide.dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("`torch-bf16`: "), std::string::npos) << md;
  EXPECT_NE(md.find("precision: bf16 autocast;"), std::string::npos) << md;
  EXPECT_NE(md.find("precision: not recorded;"), std::string::npos) << md;
  EXPECT_NE(md.find("⚠ `tuned` is barely tuned: its autotune search finished 2 trials"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("`wide` is barely tuned"), std::string::npos) << md;
  EXPECT_NE(md.find("`tuned` tunes on its clock: search 9.0 s of 8.0 s (3 trials, 2 finished); "
                    "chosen: `-epoch 7 -lr 0.3`."),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("`wide` tunes on its clock"), std::string::npos) << md;
}

// External rows show their protocol and CPU by phase; a flagged row is marked ⚠ in the table
// and named on a line with the referee's figures.
TEST(Report, ExternalRowsShowCpuByPhaseAndWorkOffTheClock) {
  testing::TempDir dir;
  nlohmann::json honest = Cell("d", "honest", 1), cheat = Cell("d", "cheat", 1);
  honest["spec"] = "exec:/opt/honest.py";
  honest["context"] = {{"engine_protocol", "2"},
                       {"engine_cpu_startup_seconds", "0.050"},
                       {"engine_cpu_load_seconds", "0.400"},
                       {"engine_cpu_train_seconds", "12.000"},
                       {"engine_cpu_pause_seconds", "1.500"},
                       {"engine_pause_rows", "8000"},
                       {"engine_cpu_after_predict_seconds", "0.700"},
                       {"engine_after_rows", "4000"},
                       {"engine_cpu_after_seconds", "0.900"},
                       {"engine_peak_memory_mb", "412.6"},
                       {"engine_off_clock", ""}};
  cheat["spec"] = "exec:/opt/cheat.py";
  cheat["context"] = {{"engine_protocol", "1: labels given at load"},
                      {"engine_cpu_load_seconds", "8.600"},
                      {"engine_off_clock",
                       "load took 8.60 CPU-s where the harness's reference "
                       "reader reads the same files in 0.01"}};
  const std::string run = RunDir(dir, "run", {honest.dump(), cheat.dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("| `honest` ⇄ | 2 | 0.05 | 0.40 | 12.00 | 1.50 (8000 rows) | 0.70 (4000 rows) "
                    "| 0.90 | 413 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `cheat` ⇄ ⚠ work off the clock |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| `honest` ⇄ ⚠"), std::string::npos) << md;
  EXPECT_NE(md.find("| `cheat` ⇄ | 1: labels given at load | — | 8.60 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| — |\n"), std::string::npos) << md;  // cheat's memory: not in its context
  EXPECT_NE(md.find("Its peak memory is the cell's: the harness process"), std::string::npos) << md;
  EXPECT_NE(md.find("Peak memory is the cell's largest: the harness process"), std::string::npos)
      << md;
  EXPECT_NE(md.find("⚠ `cheat` did work off the clock that looks like learning, repeat 1: load "
                    "took 8.60 CPU-s"),
            std::string::npos)
      << md;
}

// A resumed run on another machine, or shards merged from two nodes: no ratio across them.
TEST(Report, RowsFromAnotherMachineGetNoRatio) {
  testing::TempDir dir;
  nlohmann::json sparse = Cell("d", "sparse", 1), random = Cell("d", "random", 2),
                 blas = Cell("d", "blas", 3);
  sparse["spec"] = "sparse:out_sparsity=0.01";  // as run specs print it
  random["spec"] = "sparse:out_sparsity=0.01,hash=random";
  blas["spec"] = "blas";
  blas["machine"] = "other";
  blas["stopped_by"] = "budget";
  blas["epochs_trained"] = 0.5;
  blas["train_seconds"] = 2400.4;
  const std::string run = RunDir(dir, "run", {sparse.dump(), random.dump(), blas.dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("| `sparse` | m | 2 | 1 ok / 1 | 1.5 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| different machines |"), std::string::npos) << md;
  EXPECT_EQ(md.find("fastest dense baseline `blas`"), std::string::npos) << md;
  EXPECT_NE(
      md.find(
          "Not compared, on other machines or threads than `sparse`: `blas` (other, 2 threads)"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| 2400 (budget) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| budget, at epoch 0.50 |"), std::string::npos) << md;
  blas["metric_value"] = 0.1;  // far below the others: the budget says why
  const std::string weak = RunDir(dir, "weak", {sparse.dump(), random.dump(), blas.dump()});
  WriteReport(Options(weak, dir.file("weak-out")), BuiltinEngines());
  EXPECT_NE(Read(dir.file("weak-out") + "/report.md")
                .find("`blas` scores far below the others: its training budget stopped it after "
                      "2400 s, at epoch 0.50."),
            std::string::npos);
  EXPECT_NE(md.find("### At the target"), std::string::npos) << md;
  EXPECT_NE(
      md.find(
          "`random` (uniform sampling, same active count) 1 s: LSH over random sampling is 1.00×"),
      std::string::npos)
      << md;  // the same machine: a ratio
}

}  // namespace
}  // namespace sparsebench

namespace sparsebench {
namespace {

// A slow engine with no curve point yet when the first reached the target: its first point
// tells how far it was then.
TEST(Report, AnEngineWithNoPointByEqualTimeShowsItsFirst) {
  testing::TempDir dir;
  nlohmann::json sparse = Cell("d", "sparse", 1), blas = Cell("d", "blas", 2);
  blas["spec"] = "blas";
  blas["curve"] = {{97.0, 0.04, 0.0018, nullptr, nullptr}, {200.0, 0.08, 0.45, nullptr, nullptr}};
  const std::string run = RunDir(dir, "run", {sparse.dump(), blas.dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("| no point yet; 0.0018 at its first, 97 s (at 1 s) |"), std::string::npos)
      << md;
}

}  // namespace
}  // namespace sparsebench

namespace sparsebench {
namespace {

nlohmann::json AtThreads(nlohmann::json cell, int threads, double samples_per_second) {
  cell["threads"] = threads;
  cell["cell_id"] = fmt::format("{}/{}/t{}/r1", cell["dataset"].get<std::string>(),
                                cell["engine"].get<std::string>(), threads);
  cell["samples_per_second"] = samples_per_second;
  return cell;
}

// Issue 42: each engine's samples/s and time to target at each thread count, its speed-up from
// the fewest threads, and a step below 80% of the thread ratio named with what runs on them.
TEST(Report, ThreadScalingNamesTheEnginesThatScaleBelowTheLimit) {
  testing::TempDir dir;
  nlohmann::json sparse = Cell("d", "sparse", 1), blas = Cell("d", "blas", 1);
  sparse["spec"] = "sparse:out_sparsity=0.01";
  blas["spec"] = "blas";
  nlohmann::json blas1 = AtThreads(blas, 1, 1000), blas2 = AtThreads(blas, 2, 1200),
                 only_two = Cell("d", "only-two", 1);
  blas1["epoch_details"] = {{{"epoch", 1}, {"seconds_gemm", 0.6}}};
  blas2["epoch_details"] = {{{"epoch", 1}, {"seconds_gemm", 0.25}}, {{"seconds_gemm", 0.15}}};
  only_two["spec"] = "blas";
  blas2["curve"] = {{0.5, 0.5, 0.3, nullptr, nullptr}, {0.8, 1.0, 0.45, nullptr, nullptr}};
  const std::string run =
      RunDir(dir, "run",
             {AtThreads(sparse, 1, 1000).dump(), AtThreads(sparse, 2, 1900).dump(), blas1.dump(),
              blas2.dump(), only_two.dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("### Thread scaling"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| engine | machine | samples/s, 1 thr | samples/s, 2 thr | time to target s, 1 "
              "thr | time to target s, 2 thr | speed-up 1→2 thr |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| `sparse` | m | 1000 | 1900 | 1 | 1 | 1.90× (to target 1.00×) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `blas` | m | 1000 | 1200 | 1 | 0.8 | 1.20× (to target 1.25×) |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| `only-two` | m |", md.find("### Thread scaling")), std::string::npos) << md;
  EXPECT_NE(md.find("- `blas` (m): 1→2 threads 1.20× (of 2×; its own timers, summed over epochs: "
                    "gemm 1.50×, the rest of the clock 0.82×). On the threads: OpenBLAS's sgemm"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("- `sparse` (m):"), std::string::npos) << md;
}

}  // namespace
}  // namespace sparsebench

namespace sparsebench {
namespace {

// A row 50 times slower than the fastest dense baseline read "0.0×".
TEST(Report, ASmallSpeedupKeepsTwoSignificantDigits) {
  testing::TempDir dir;
  nlohmann::json slow = Cell("d", "slow", 1), blas = Cell("d", "blas", 2);
  slow["spec"] = "sparse:out_sparsity=0.01";
  slow["curve"] = {{50.0, 1.0, 0.45, nullptr, nullptr}};
  blas["spec"] = "blas";
  const std::string run = RunDir(dir, "run", {slow.dump(), blas.dump()});
  WriteReport(Options(run, dir.file("out")), BuiltinEngines());
  const std::string md = Read(dir.file("out") + "/report.md");
  EXPECT_NE(md.find("| 0.02× |"), std::string::npos) << md;
  EXPECT_EQ(md.find("0.0×"), std::string::npos) << md;
}

}  // namespace
}  // namespace sparsebench
