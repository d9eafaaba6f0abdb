#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine_error.h"
#include "harness/cli/commands.h"
#include "harness/compare.h"
#include "harness/report.h"
#include "harness/run_dir.h"
#include "harness/runner.h"

namespace sparsebench::cli {
namespace {

const std::string kSource = SPARSEBENCH_SOURCE_DIR;

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

void ParseShard(const std::string& text, RunOptions& o) {
  unsigned i = 0, n = 0;
  char slash = 0;
  if (std::sscanf(text.c_str(), "%u%c%u", &i, &slash, &n) != 3 || slash != '/' || n == 0 || i >= n) {
    throw ConfigError("--shard must be I/N with 0 <= I < N, e.g. 0/4");
  }
  o.shard = i;
  o.shards = n;
}

void AddRun(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto shard = std::make_shared<std::string>();
  o->matrix_path = kSource + "/harness/matrices/default.toml";
  o->out_dir = "sparsebench-run";
  o->prices_path = kSource + "/harness/instances.csv";
  CLI::App* cmd = app.add_subcommand("run", "Run a benchmark matrix: every cell in a child process, rows as cells end, then the report");
  cmd->add_option("--matrix", o->matrix_path, "Matrix TOML file")->capture_default_str();
  cmd->add_option("--out", o->out_dir, "Output directory")->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Repeats of every cell (default: the matrix's)")->check(CLI::Range(1u, kMaxRepeats));
  cmd->add_option("--instance", o->instance, "The instance this runs on (a row of --prices), for cost");
  cmd->add_option("--price-per-hour", o->price_per_hour, "USD per hour of this machine (overrides the table)")->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--prices", o->prices_path, "Instance price table")->capture_default_str();
  cmd->add_option("--shard", *shard, "Run only shard I of N (I/N, 0-based), e.g. from a job array");
  cmd->add_flag("--resume", o->resume, "Skip cells of the same matrix that already finished ok in --out");
  cmd->add_flag("--overwrite", o->overwrite,
                "Remove the results --out already holds (an earlier run, or another matrix's) and start afresh");
  cmd->add_option("--data", o->data_dir, "Where synthetic presets are generated (default $SPARSEBENCH_DATA or <source>/data)");
  cmd->callback([o, shard] {
    if (!shard->empty()) ParseShard(*shard, *o);
    if (o->data_dir.empty()) o->data_dir = DefaultDataDir();
    o->binary = SelfPath();
    o->published_path = kSource + "/harness/published.csv";
    const int failed = RunMatrix(*o);
    fmt::print(stderr, "report: {}/report.md ({} cell(s) not ok)\n", o->out_dir, failed);
  });
}

void AddReport(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  o->prices_path = kSource + "/harness/instances.csv";
  o->published_path = kSource + "/harness/published.csv";
  CLI::App* cmd = app.add_subcommand("report", "Merge run directories (any machines, shards) into one report");
  cmd->add_option("dirs", o->run_dirs, "Run directories")->required();
  cmd->add_option("--out", o->out_dir, "Output directory")->required();
  cmd->add_option("--prices", o->prices_path, "Instance price table")->capture_default_str();
  cmd->callback([o] {
    EnsureDirectory(o->out_dir);
    const RunDirLock lock(o->out_dir);
    WriteReport(*o);
    fmt::print(stderr, "report: {}/report.md\n", o->out_dir);
  });
}

void AddCompare(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  auto slowdown = std::make_shared<std::string>("10%");
  CLI::App* cmd = app.add_subcommand("compare", "Compare a run with a baseline run; exit 1 on a regression");
  cmd->add_option("baseline", o->baseline, "Baseline run directory or results.csv")->required();
  cmd->add_option("current", o->current, "Current run directory or results.csv")->required();
  cmd->add_option("--max-slowdown", *slowdown, "Largest allowed slowdown, e.g. 10%")->capture_default_str();
  cmd->add_option("--max-metric-drop", o->max_metric_drop, "Largest allowed metric drop in percentage points")->capture_default_str();
  cmd->add_option("--reference", o->reference, "Engine whose time divides the others' when machines differ")->capture_default_str();
  cmd->callback([o, slowdown] {
    std::string text = *slowdown;
    if (!text.empty() && text.back() == '%') text.pop_back();
    char* end = nullptr;
    const double percent = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(percent >= 0)) throw ConfigError("--max-slowdown must look like 10%");
    o->max_slowdown = percent / 100;
    const CompareResult r = Compare(*o);
    fmt::print("{}", r.markdown);
    if (r.regression) throw RegressionFound();
  });
}

}  // namespace

void AddBenchCommands(CLI::App& app) {
  AddRun(app);
  AddReport(app);
  AddCompare(app);
}

}  // namespace sparsebench::cli
