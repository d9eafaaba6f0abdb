// The report's notes under each dataset's table: external rows and the null engine's floor,
// precision and tuning, thread scaling, other machines and the speed-up's digits.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "baselines/temp_dir.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"
#include "harness/report/report.h"
#include "harness/report/tests/report_fixture.h"

namespace sparsebench {
namespace {

using namespace report_fixture;

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
