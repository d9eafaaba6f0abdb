// The runner's own cost per cell as a run grows: writing the cell's file and regenerating
// results.csv and curves.csv, with Arg(0) cells already finished. `Kept` is RunResults (the
// results in memory, the files rewritten at a bounded cost per cell); `Reread` is what the
// runner did before issue 44, reading every cell file back after each cell.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "baselines/temp_dir.h"
#include "harness/cli/engines.h"
#include "harness/record/cell_json.h"
#include "harness/record/rows.h"
#include "harness/run/run_results.h"

namespace sparsebench {
namespace {

// A finished cell as a quick run writes one: six curve points, two epochs of details.
CellResult Cell(size_t i) {
  CellResult r;
  r.cell_id = "d/e/t2/r" + std::to_string(i);
  r.cell_index = static_cast<int64_t>(i);
  r.dataset = "d";
  r.name = "e";
  r.spec = "sparse:hidden=128,out_sparsity=0.05";
  r.threads = 2;
  r.repeat = static_cast<int64_t>(i);
  r.status = CellStatus::kOk;
  r.machine = "AMD EPYC, 2 cores";
  r.metric = "p_at_1";
  r.target_rule = "dense-1pt";
  r.train_seconds = 1.0 + i;
  r.metric_value = r.p_at_1 = 0.2;
  for (int p = 1; p <= 6; ++p) r.curve.push_back({0.2 * p, p / 3.0, 0.03 * p});
  r.epoch_details = {{{"epoch", 1}, {"seconds_update", 0.1}},
                     {{"epoch", 2}, {"seconds_update", 0.1}}};
  return r;
}

std::string RunDir(const TempDir& dir, size_t cells) {
  const std::string run = (dir.path() / "run").string();
  std::filesystem::create_directories(run + "/cells");
  for (size_t i = 0; i < cells; ++i)
    WriteCellFile(Cell(i), run + "/cells/c" + std::to_string(i) + ".json");
  return run;
}

void Kept(benchmark::State& state) {
  const TempDir dir(std::filesystem::temp_directory_path(), "results-bench");
  const std::string run = RunDir(dir, static_cast<size_t>(state.range(0)));
  RunResults results(run, BuiltinEngines());
  const CellResult next = Cell(static_cast<size_t>(state.range(0)));
  for (auto _ : state) results.Add("next", next);
  state.counters["files_written_per_cell"] =
      static_cast<double>(results.counts().writes) / static_cast<double>(state.iterations());
}

void Reread(benchmark::State& state) {
  const TempDir dir(std::filesystem::temp_directory_path(), "results-bench");
  const std::string run = RunDir(dir, static_cast<size_t>(state.range(0)));
  const CellResult next = Cell(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    WriteCellFile(next, run + "/cells/next.json");
    WriteResultFiles(LoadRows({run}, BuiltinEngines()), run);
  }
}

BENCHMARK(Kept)->Arg(100)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);
BENCHMARK(Reread)->Arg(100)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sparsebench

BENCHMARK_MAIN();
