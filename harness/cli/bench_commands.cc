#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/engine_error.h"
#include "engine/api/engine_family.h"
#include "engine/api/parse_number.h"
#include "harness/cli/commands.h"
#include "harness/record/files.h"
#include "harness/report/compare.h"
#include "harness/report/report.h"
#include "harness/run/matrix.h"
#include "harness/run/run_dir.h"
#include "harness/run/runner.h"

namespace sparsebench::cli {
namespace {

const std::string kSource = SPARSEBENCH_SOURCE_DIR;
const std::string kHistoryPage = kSource + "/results/history/index.html";
constexpr double kMaxPricePerHour = 1e6;  // USD

std::string SelfPath() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find this executable through /proc/self/exe");
  return self.string();
}

std::string DefaultDataDir() {
  const char* env = std::getenv("SPARSEBENCH_DATA");
  return env != nullptr ? env : kSource + "/data";
}

// "I/N", 0 <= I < N: shard I of N.
void ParseShard(const std::string& text, RunOptions& o) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw ConfigError("--shard: '" + text + "' is not I/N, e.g. 0/4");
  const uint32_t n =
      ParseNumber<uint32_t>(std::string_view(text).substr(slash + 1), "--shard", {1, UINT32_MAX});
  o.shard = ParseNumber<uint32_t>(std::string_view(text).substr(0, slash), "--shard", {0, n - 1});
  o.shards = n;
}

void AddRun(CLI::App& app, NumberOptions& numbers, const EngineRegistry& engines) {
  auto o = std::make_shared<RunOptions>();
  o->matrix_path = kSource + "/harness/matrices/default.toml";
  o->out_dir = "sparsebench-run";
  o->prices_path = kSource + "/harness/instances.csv";
  CLI::App* cmd = app.add_subcommand("run", "Run a benchmark matrix: every cell in a child process, rows as cells end, then the report");
  cmd->add_option("--matrix", o->matrix_path, "Matrix TOML file")->capture_default_str();
  cmd->add_option("--out", o->out_dir, "Output directory")->capture_default_str();
  RunOptions& run = *o;
  numbers.Add<uint32_t>(
      *cmd, "--repeats", [&run](uint32_t v) { run.repeats = v; }, {1, kMaxRepeats},
      "Repeats of every cell (default: the matrix's)");
  cmd->add_option("--instance", o->instance, "The instance this runs on (a row of --prices), for cost");
  numbers.Add<double>(
      *cmd, "--price-per-hour", [&run](double v) { run.price_per_hour = v; }, {0, kMaxPricePerHour},
      "USD per hour of this machine (overrides the table)");
  cmd->add_option("--prices", o->prices_path, "Instance price table")->capture_default_str();
  numbers.AddPattern(
      *cmd, "--shard", [&run](const std::string& text) { ParseShard(text, run); },
      NumberRange<uint32_t>{1, UINT32_MAX}, "0/{}", "I/N",
      "Run only shard I of N (0 <= I < N), e.g. from a job array");
  cmd->add_flag("--resume", o->resume, "Skip cells of the same matrix that already finished ok in --out");
  cmd->add_option("--previous-matrix", o->previous_matrix_path,
                  "With --resume, when the matrix has changed since the run in --out: the matrix "
                  "it was made with "
                  "(e.g. from git); cells both run alike are kept, the others run again");
  cmd->add_flag("--overwrite", o->overwrite,
                "Remove the results --out already holds (an earlier run, or another matrix's) and start afresh");
  cmd->add_option("--data", o->data_dir, "Where synthetic presets are generated (default $SPARSEBENCH_DATA or <source>/data)");
  cmd->callback([o, &engines] {
    if (o->data_dir.empty()) o->data_dir = DefaultDataDir();
    o->binary = SelfPath();
    o->published_path = kSource + "/harness/published.csv";
    o->history_page = kHistoryPage;
    const int failed = RunMatrix(*o, engines).failed;
    fmt::print(stderr, "report: {}/report.md ({} cell(s) not ok)\n", o->out_dir, failed);
  });
}

void AddReport(CLI::App& app, const EngineRegistry& engines) {
  auto o = std::make_shared<ReportOptions>();
  o->prices_path = kSource + "/harness/instances.csv";
  o->published_path = kSource + "/harness/published.csv";
  o->history_page = kHistoryPage;
  CLI::App* cmd = app.add_subcommand("report", "Merge run directories (any machines, shards) into one report");
  cmd->add_option("dirs", o->run_dirs, "Run directories")->required();
  cmd->add_option("--out", o->out_dir, "Output directory")->required();
  cmd->add_option("--prices", o->prices_path, "Instance price table")->capture_default_str();
  cmd->callback([o, &engines] {
    EnsureDirectory(o->out_dir);
    const RunDirLock lock(o->out_dir);
    WriteReport(*o, engines);
    fmt::print(stderr, "report: {}/report.md\n", o->out_dir);
  });
}

void AddCompare(CLI::App& app, NumberOptions& numbers, const EngineRegistry& engines) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Compare a run with a baseline run; exit 1 on a regression");
  cmd->add_option("baseline", o->baseline, "Baseline run directory or results.csv")->required();
  cmd->add_option("current", o->current, "Current run directory or results.csv")->required();
  CompareOptions& compare = *o;
  const NumberRange<double> percent{0, kMaxSlowdownPercent};
  numbers
      .AddPattern(
          *cmd, "--max-slowdown",
          [&compare, percent](const std::string& text) {
            compare.max_slowdown = ParsePercent(text, "--max-slowdown", percent);
          },
          percent, "{}%", "PERCENT",
          "Largest allowed slowdown, e.g. 10% [" + percent.Describe() + ", % optional]")
      ->default_str("10%");
  numbers.Add(*cmd, "--max-metric-drop", o->max_metric_drop, {0, 100},
              "Largest allowed metric drop in percentage points");
  cmd->add_option("--reference", o->reference,
                  "Engine whose time divides the others' when machines differ")
      ->default_str(engines.DefaultReference());
  cmd->callback([o, &engines] {
    const CompareResult r = Compare(*o, engines);
    fmt::print("{}", r.markdown);
    if (r.regression) throw RegressionFound();
  });
}

void AddEngines(CLI::App& app, const EngineRegistry& engines) {
  CLI::App* cmd = app.add_subcommand("engines", "List the engine families a spec can name");
  cmd->callback([&engines] {
    for (const EngineFamily& f : engines.families()) {
      fmt::print("{:<10} {}{}{}\n", f.name, f.summary, f.reads_text ? " [reads raw text]" : "",
                 f.dense_baseline ? " [dense baseline]" : "");
    }
  });
}

}  // namespace

void AddBenchCommands(CLI::App& app, NumberOptions& numbers, const EngineRegistry& engines) {
  AddRun(app, numbers, engines);
  AddReport(app, engines);
  AddCompare(app, numbers, engines);
  AddEngines(app, engines);
}

}  // namespace sparsebench::cli
