#include "harness/run/runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/synthetic.h"
#include "engine/api/engine_error.h"
#include "harness/proc/subprocess.h"
#include "harness/record/cell_json.h"
#include "harness/record/csv.h"
#include "harness/record/files.h"
#include "harness/record/machine.h"
#include "harness/record/prices.h"
#include "harness/record/rows.h"
#include "harness/record/target_rule.h"
#include "harness/report/report.h"
#include "harness/run/context.h"
#include "harness/run/run_dir.h"
#include "harness/run/run_results.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

CellFiles PrepareData(const MatrixDataset& d, const std::string& data_dir) {
  if (d.preset.empty()) return {d.train, d.test, d.format};
  const fs::path dir = fs::path(data_dir) / fmt::format("{}-{}", d.preset, d.scale);
  const std::string ext = d.preset == "amazon670k" ? "txt" : "csv";
  if (!fs::exists(dir / ".complete")) {
    fmt::print(stderr, "generating {} at scale {} into {}\n", d.preset, d.scale, dir.string());
    SynthOptions synth;
    synth.preset = d.preset;
    synth.scale = d.scale;
    synth.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    GenerateSynthetic(synth, dir.string());
    std::ofstream(dir / ".complete") << "";
  }
  return {(dir / ("train." + ext)).string(), (dir / ("test." + ext)).string(), ""};
}

}  // namespace

std::vector<std::string> CellCommand(const Matrix& m, const Cell& c, const CellFiles& files,
                                     const std::string& binary) {
  std::vector<std::string> argv = {binary, "train", "--engine", c.engine->spec, "--train", files.train,
                                   "--test", files.test, "--threads", std::to_string(c.threads),
                                   "--seed", std::to_string(c.repeat),
                                   "--evals-per-epoch", std::to_string(m.evals_per_epoch),
                                   "--eval-sample", std::to_string(m.eval_sample), "--metric", c.dataset->metric,
                                   "--latency-samples", std::to_string(m.latency_samples)};
  // Settings the matrix leaves out stay the engine's own.
  if (c.engine->epochs > 0) argv.insert(argv.end(), {"--epochs", std::to_string(c.engine->epochs)});
  if (c.engine->batch > 0) argv.insert(argv.end(), {"--batch", std::to_string(c.engine->batch)});
  if (c.engine->lr > 0) argv.insert(argv.end(), {"--lr", fmt::format("{}", c.engine->lr)});
  if (c.engine->lr_half_life)
    argv.insert(argv.end(), {"--lr-half-life", std::to_string(*c.engine->lr_half_life)});
  if (const double budget = c.engine->train_budget_seconds.value_or(m.train_budget_seconds);
      budget > 0)
    argv.insert(argv.end(), {"--train-budget-seconds", fmt::format("{}", budget)});
  if (const double every = c.engine->eval_every_seconds.value_or(m.eval_every_seconds); every > 0)
    argv.insert(argv.end(), {"--eval-every-seconds", fmt::format("{}", every)});
  if (c.dataset->patience > 0)
    argv.insert(argv.end(), {"--holdout", fmt::format("{}", c.dataset->holdout), "--patience",
                             std::to_string(c.dataset->patience)});
  if (c.dataset->min_improvement > 0)
    argv.insert(argv.end(), {"--min-improvement", fmt::format("{}", c.dataset->min_improvement)});
  const double fixed = TargetRule::Parse(c.dataset->target).value;
  if (!std::isnan(fixed)) argv.insert(argv.end(), {"--target", fmt::format("{}", fixed)});
  if (!files.format.empty()) argv.insert(argv.end(), {"--format", files.format});
  return argv;
}

std::vector<std::string> CellEnvironment(const char* user_tunables) {
  if (user_tunables != nullptr) return {};
  return {"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"};
}

std::string CellRecipe(const Matrix& m, const Cell& c) {
  const MatrixDataset& d = *c.dataset;
  const CellFiles named = d.preset.empty()
                              ? CellFiles{d.train, d.test, d.format}
                              : CellFiles{fmt::format("{}@{}", d.preset, d.scale), "", ""};
  std::vector<std::string> recipe = CellCommand(m, c, named, "");
  recipe.insert(recipe.end(), {"target=" + d.target, fmt::format("max_seconds={}", m.max_seconds),
                               fmt::format("max_memory_mb={}", m.max_memory_mb)});
  return fmt::format("{}", fmt::join(recipe, " "));
}

namespace {

// The cells of `previous` (with `repeats` repeats) by id, each with its recipe.
std::map<std::string, std::string> Recipes(Matrix previous, uint32_t repeats) {
  previous.repeats = repeats;
  for (MatrixDataset& d : previous.datasets) {
    for (MatrixEngine& e : d.engines) e.repeats = std::max(repeats, e.repeats.value_or(repeats));
  }
  std::map<std::string, std::string> recipes;
  for (const Cell& cell : ExpandCells(previous)) recipes[cell.id()] = CellRecipe(previous, cell);
  return recipes;
}

// The child's result line, or a row saying why there is none. A child that fails says so on
// its line where it knows why (an external engine's fault, out of memory: harness/cli/
// train_command.cc); otherwise its last error line is the reason.
CellResult CellOutcome(const ProcessResult& process, const fs::path& out, const fs::path& log) {
  if (!process.stopped_by.empty()) {
    const bool timeout = process.stopped_by == "timeout";
    return FailedCell(
        timeout ? CellStatus::kTimeout : CellStatus::kOom,
        timeout ? fmt::format("killed after {:.1f} s, the matrix's max_seconds", process.seconds)
                : fmt::format("killed at {:.0f} MB resident, over the matrix's max_memory_mb",
                              process.peak_rss_mb));
  }
  std::string last_error = FileTail(log, 2000);
  if (const size_t at = last_error.rfind("error:"); at != std::string::npos) last_error = last_error.substr(at);
  while (!last_error.empty() && last_error.back() == '\n') last_error.pop_back();
  if (process.signal != 0)
    return FailedCell(CellStatus::kCrash, process.Describe() + "; " + last_error);
  std::optional<CellResult> line;
  try {
    line = ReadChildLine(out.string());
  } catch (const DataError& e) {
    return FailedCell(CellStatus::kError,
                      std::string("the result line is not a cell result: ") + e.what());
  }
  if (process.exit_code != 0) {
    if (line && line->status != CellStatus::kNone && !line->ok() && !line->reason.empty())
      return FailedCell(line->status, line->reason);
    return FailedCell(CellStatus::kError, process.Describe() + ": " + last_error);
  }
  if (!line) return FailedCell(CellStatus::kError, "no result line on stdout");
  if (line->status == CellStatus::kNone)
    return FailedCell(CellStatus::kError, "the result line has no status");
  return *line;
}

class CellProgress {
 public:
  explicit CellProgress(size_t total) : total_(total), tty_(isatty(STDERR_FILENO) != 0), start_(Clock::now()) {}

  void Begin(size_t i, const std::string& id) {
    index_ = i;
    id_ = id;
    if (!tty_) fmt::print(stderr, "[{}/{}] {} ...\n", i, total_, id);
  }
  void Poll(double seconds, const fs::path& log) {
    if (!tty_) return;
    std::string last = FileTail(log, 300);
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
    fmt::print(stderr, "\r\033[K[{}/{}] {} {:.0f} s | {} | {}", index_, total_, id_, seconds, last.substr(0, 60), Eta());
  }
  void End(const std::string& status, double seconds) {
    ++done_;
    fmt::print(stderr, "{}[{}/{}] {} {} in {:.1f} s, {}\n", tty_ ? "\r\033[K" : "", index_, total_, id_, status, seconds, Eta());
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string Eta() const {
    if (done_ == 0) return "ETA unknown";
    const double spent = std::chrono::duration<double>(Clock::now() - start_).count();
    return fmt::format("ETA {:.0f} s", spent / static_cast<double>(done_) * static_cast<double>(total_ - done_));
  }
  size_t total_, index_ = 0, done_ = 0;
  bool tty_;
  std::string id_;
  Clock::time_point start_;
};

// context.json of a run: this run's context, after the machines of the runs it resumes that
// had other hardware (their cells keep their own machine in reports).
nlohmann::json ResumedContexts(const fs::path& file, const nlohmann::json& context, bool resume) {
  std::error_code error;
  if (!resume || !fs::is_regular_file(file, error)) return context;
  std::ifstream in(file, std::ios::binary);
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : ContextsIn(nlohmann::json::parse(in, nullptr, false))) {
    if (MachineName(c) == MachineName(context)) continue;
    fmt::print(
        stderr,
        "note: {} resumes a run begun on other hardware ({}; this is {}): its cells stay apart\n",
        file.parent_path().string(), MachineName(c), MachineName(context));
    all.push_back(c);
  }
  if (all.empty()) return context;
  all.push_back(context);
  return all;
}

}  // namespace

RunOutcome RunMatrix(const RunOptions& o, const EngineRegistry& engines) {
  // Everything the user gave is checked before --out is touched.
  Matrix matrix = ReadMatrix(o.matrix_path, engines);
  if (o.repeats > 0) {
    if (o.repeats > kMaxRepeats) throw ConfigError(fmt::format("--repeats must be from 1 to {}", kMaxRepeats));
    matrix.repeats = o.repeats;
    for (MatrixDataset& d : matrix.datasets) {
      for (MatrixEngine& e : d.engines) e.repeats.reset();
    }
  }
  if (CountCells(matrix, matrix.repeats) > kMaxCells) {
    throw ConfigError(fmt::format("with --repeats {} the matrix expands to {} cells, more than {}", matrix.repeats,
                                  CountCells(matrix, matrix.repeats), kMaxCells));
  }
  if (o.shards == 0 || o.shard >= o.shards) throw ConfigError("--shard must be I/N with 0 <= I < N");
  if (o.resume && o.overwrite) {
    throw ConfigError("--resume keeps the finished cells in --out and --overwrite removes them: give one of the two");
  }
  const Pricing pricing = ResolvePricing(o.prices_path, o.instance, o.price_per_hour);
  const std::vector<Cell> cells = ShardCells(ExpandCells(matrix), o.shard, o.shards);
  const fs::path out(o.out_dir), cells_dir = out / "cells";
  EnsureDirectory(o.out_dir);
  const RunDirLock lock(o.out_dir);  // until the report is written
  std::optional<Matrix> previous;
  if (!o.previous_matrix_path.empty()) {
    if (!o.resume)
      throw ConfigError(
          "--previous-matrix says which matrix --resume continues: give --resume too");
    previous = ReadMatrix(o.previous_matrix_path, engines, false);
  }
  const std::map<std::string, std::string> previous_recipes =
      previous ? Recipes(*previous, matrix.repeats) : std::map<std::string, std::string>{};
  PrepareOutDir(o.out_dir, matrix, {o.resume, o.overwrite, previous ? &*previous : nullptr});
  EnsureDirectory(cells_dir.string());
  nlohmann::json context = CaptureContext();
  context["matrix"] = matrix.name;
  context["matrix_path"] = matrix.path;
  context["matrix_hash"] = matrix.content_hash;
  context["instance"] = pricing.instance;
  context["price_per_hour"] = pricing.price_per_hour;
  context["shard"] = fmt::format("{}/{}", o.shard, o.shards);
  const std::vector<std::string> cell_env = CellEnvironment(std::getenv("GLIBC_TUNABLES"));
  context["cell_env"] = fmt::format("{}", fmt::join(cell_env, " "));
  const nlohmann::json contexts = ResumedContexts(out / "context.json", context, o.resume);
  WriteFileAtomically(
      (out / "context.json").string(),
      contexts.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  CellProgress progress(cells.size());
  RunResults results(o.out_dir, engines);  // the cells already there, read once
  int failed = 0;
  size_t position = 0;
  for (const Cell& cell : cells) {
    ++position;
    const fs::path stem = cells_dir / CellFileStem(cell.id());
    if (o.resume && results.Finished(stem.filename().string())) {
      const auto was = previous_recipes.find(cell.id());
      if (!previous || (was != previous_recipes.end() && was->second == CellRecipe(matrix, cell))) {
        fmt::print(stderr, "[{}/{}] {} finished earlier, skipped\n", position, cells.size(),
                   cell.id());
        continue;
      }
      fmt::print(stderr,
                 "[{}/{}] {} finished earlier under the previous matrix, which ran it otherwise: "
                 "run again\n",
                 position, cells.size(), cell.id());
    }
    const CellFiles files = PrepareData(*cell.dataset, o.data_dir);
    progress.Begin(position, cell.id());
    // The cell learns its runner's pid, to die with it (harness/cli/main.cc).
    ProcessLimits limits{matrix.max_seconds, matrix.max_memory_mb, nullptr, cell_env};
    limits.extra_env.push_back(fmt::format("SPARSEBENCH_CELL={}", getpid()));
    bool pid_written = false;
    limits.on_poll = [&](double seconds, int pid) {
      if (!pid_written) pid_written = true, WriteFileAtomically(stem.string() + ".pid", std::to_string(pid) + "\n");
      progress.Poll(seconds, stem.string() + ".log");
    };
    const ProcessResult process = RunProcess(CellCommand(matrix, cell, files, o.binary), stem.string() + ".out",
                                             stem.string() + ".log", limits);
    fs::remove(stem.string() + ".pid");
    CellResult row = CellOutcome(process, stem.string() + ".out", stem.string() + ".log");
    // The runner's own measure of the cell's peak, its whole process tree sampled together,
    // where it is larger than the cell's.
    if (row.ok())
      row.peak_rss_mb = std::max(row.peak_rss_mb.value_or(0.0),
                                 process.peak_rss_mb + StagedMemoryMb(row.context));
    AddCellFields(row, cell, context, pricing, process.seconds);
    results.Add(stem.filename().string(), row);
    failed += !row.ok();
    progress.End(row.ok() ? "ok" : std::string(Text(row.status)) + ": " + row.reason,
                 process.seconds);
  }
  const ReportInput input{results.Rows(), ContextsIn(contexts)};
  WriteReport(input,
              {{o.out_dir}, o.out_dir, o.prices_path, o.published_path, o.plots, o.history_page},
              engines);
  return {failed, results.counts().cell_files_read};
}

}  // namespace sparsebench
