// A cell's child process receives exactly the settings its matrix gives, and nothing for
// the ones it leaves to the engine.
#include "harness/run/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"
#include "harness/record/results_csv.h"
#include "harness/report/report.h"
#include "harness/run/matrix.h"

namespace sparsebench {
namespace {

// A run of the matrix file `matrix` in `dir` whose cells run the shell script `script`
// instead of `sparsebench train`.
RunOptions ScriptedRun(const testing::TempDir& dir, const std::string& matrix,
                       const std::string& script) {
  const std::string child = dir.file("child.sh");
  std::ofstream(child) << script;
  std::filesystem::permissions(child, std::filesystem::perms::owner_all);
  RunOptions o;
  o.matrix_path = matrix;
  o.out_dir = dir.file("out");
  o.data_dir = dir.file("data");
  o.binary = child;
  o.plots = false;
  return o;
}

// A matrix file in `dir` of one dataset "d" (a one-row file for train and test) on one thread:
// `keys` are the dataset's further keys (TOML lines), `engines` its engines' TOML array.
std::string OneDatasetMatrix(const testing::TempDir& dir, const std::string& engines,
                             const std::string& keys = "") {
  const std::string data = dir.file("a.txt"), matrix = dir.file("m.toml");
  std::ofstream(data) << "1 2 2\n0 0:1\n";
  std::ofstream(matrix) << "name = \"t\"\nthreads = [1]\n[[datasets]]\nname = \"d\"\ntrain = \""
                        << data << "\"\ntest = \"" << data << "\"\n"
                        << keys << "engines = " << engines << "\n";
  return matrix;
}

// The value after `flag` in argv, or "" when the flag is absent.
std::string Flag(const std::vector<std::string>& argv, const std::string& flag) {
  const auto at = std::find(argv.begin(), argv.end(), flag);
  return at == argv.end() || at + 1 == argv.end() ? "" : *(at + 1);
}

TEST(CellCommand, PassesTheMatrixSettingsAndOnlyThose) {
  testing::TempDir dir;
  const std::string path = dir.file("m.toml"), train = dir.file("a.txt"), test = dir.file("b.txt");
  std::ofstream(train) << "1 2 2\n0 0:1\n";  // files that exist, in case the matrix checks
  std::ofstream(test) << "1 2 2\n0 0:1\n";
  std::ofstream(path) << R"(
name = "t"
threads = [3]
evals_per_epoch = 2
eval_sample = 300
latency_samples = 7
train_budget_seconds = 60
[[datasets]]
name = "files"
train = ")" << train << R"("
test = ")" << test << R"("
metric = "accuracy"
target = 0.75
engines = [ { name = "set", spec = "blas", epochs = 4, batch = 32, lr = 0.02, lr_half_life = 0, train_budget_seconds = 90.5, eval_every_seconds = 2 }, { name = "unset", spec = "sparse", train_budget_seconds = 0 } ]
[[datasets]]
name = "relative"
train = ")" << train << R"("
test = ")" << test << R"("
target = "dense-1pt"
engines = [ { spec = "torch" } ]
)";
  const Matrix m = ReadMatrix(path, BuiltinEngines());
  std::vector<Cell> cells = ExpandCells(m);
  ASSERT_EQ(cells.size(), 3u);
  std::sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) { return a.id() < b.id(); });
  const CellFiles files{"train.txt", "test.txt", "xmc"};
  const auto set = CellCommand(m, cells[0], files, "bin");
  EXPECT_EQ(Flag(set, "--engine"), "blas");
  EXPECT_EQ(Flag(set, "--epochs"), "4");
  EXPECT_EQ(Flag(set, "--batch"), "32");
  EXPECT_EQ(Flag(set, "--lr"), "0.02");
  EXPECT_EQ(Flag(set, "--lr-half-life"), "0");
  EXPECT_EQ(Flag(set, "--threads"), "3");
  EXPECT_EQ(Flag(set, "--evals-per-epoch"), "2");
  EXPECT_EQ(Flag(set, "--eval-sample"), "300");
  EXPECT_EQ(Flag(set, "--latency-samples"), "7");
  EXPECT_EQ(Flag(set, "--metric"), "accuracy");
  EXPECT_EQ(Flag(set, "--target"), "0.75");
  EXPECT_EQ(Flag(set, "--format"), "xmc");
  EXPECT_EQ(Flag(set, "--train"), "train.txt");
  EXPECT_EQ(Flag(set, "--train-budget-seconds"), "90.5");  // the engine's own over the matrix's
  EXPECT_EQ(Flag(set, "--eval-every-seconds"), "2");

  const auto unset = CellCommand(m, cells[1], files, "bin");
  EXPECT_EQ(Flag(unset, "--engine"), "sparse");
  for (const char* flag : {"--epochs", "--batch", "--lr", "--lr-half-life",
                           "--train-budget-seconds", "--eval-every-seconds"}) {
    EXPECT_EQ(std::count(unset.begin(), unset.end(), flag), 0) << flag << " is the engine's own choice";
  }
  // A relative target is resolved from the whole run's rows afterwards, not by the child.
  const auto relative = CellCommand(m, cells[2], files, "bin");
  EXPECT_EQ(std::count(relative.begin(), relative.end(), "--target"), 0);
  EXPECT_EQ(Flag(relative, "--train-budget-seconds"), "60");  // the matrix's
}

// The row's status comes from what the child says on its result line, or from the runner's
// own watch, never from the words in its log: a child that caught std::bad_alloc says "oom",
// and an error that merely mentions bad_alloc is an error.
TEST(RunMatrix, OutOfMemoryIsWhatTheChildReports) {
  testing::TempDir dir;
  const std::string matrix =
      OneDatasetMatrix(dir, "[ { spec = \"blas\" }, { spec = \"torch\" }, { spec = \"sparse\" } ]");
  const RunOptions o = ScriptedRun(dir, matrix, R"sh(#!/bin/sh
case "$3" in
  blas) echo '{"status":"oom","reason":"out of memory (std::bad_alloc)","spec":"blas"}'
        echo "error: std::bad_alloc" >&2; exit 1;;
  torch) echo "error: cannot open /data/bad_alloc.txt" >&2; exit 2;;
  *) echo '{"status":"ok","spec":"sparse","train_seconds":1.5,"metric_value":0.5}';;
esac
)sh");
  EXPECT_EQ(RunMatrix(o, BuiltinEngines()).failed, 2);
  const std::vector<CellResult> rows = ReadResultsCsv(o.out_dir + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].status, CellStatus::kOom);
  EXPECT_EQ(rows[0].reason, "out of memory (std::bad_alloc)");
  EXPECT_EQ(rows[1].status, CellStatus::kError);
  EXPECT_NE(rows[1].reason.find("cannot open /data/bad_alloc.txt"), std::string::npos)
      << rows[1].reason;
  EXPECT_EQ(rows[2].status, CellStatus::kOk);
  EXPECT_EQ(rows[2].spec, "sparse");
  EXPECT_EQ(rows[2].train_seconds, 1.5);
}

// Every cell's processes get glibc's malloc on transparent huge pages, so that an engine that
// allocates each step afresh is not timed on a VM's page faults; a user's own GLIBC_TUNABLES
// is left as it is.
TEST(RunMatrix, CellsGetMallocOnHugePagesUnlessTheUserSetTunables) {
  EXPECT_EQ(CellEnvironment(nullptr),
            std::vector<std::string>{"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"});
  EXPECT_TRUE(CellEnvironment("glibc.malloc.arena_max=1").empty());
  if (std::getenv("GLIBC_TUNABLES") != nullptr) GTEST_SKIP() << "GLIBC_TUNABLES is set here";

  testing::TempDir dir;
  const std::string matrix = OneDatasetMatrix(dir, "[ { spec = \"blas\" } ]");
  const std::string seen = dir.file("seen");
  const RunOptions o =
      ScriptedRun(dir, matrix,
                  "#!/bin/sh\necho \"$GLIBC_TUNABLES\" > " + seen +
                      "\necho '{\"status\":\"ok\",\"spec\":\"blas\",\"train_seconds\":1}'\n");
  ASSERT_EQ(RunMatrix(o, BuiltinEngines()).failed, 0);
  std::string value;
  std::getline(std::ifstream(seen), value);
  EXPECT_EQ(value, "glibc.malloc.hugetlb=1");
  const nlohmann::json context = nlohmann::json::parse(std::ifstream(o.out_dir + "/context.json"));
  EXPECT_EQ(context["cell_env"], "GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
}

// A finished run writes its files from the results it holds: no cell file is read after the
// cells end. The last cell overwrites the first one's file with garbage; the run's report
// still has the first cell's figures, and only `sparsebench report`, which reads the files,
// meets the garbage. A resumed run reads each file once, before any cell runs.
TEST(RunMatrix, ItsFilesComeFromTheResultsItHoldsNotFromTheCellFiles) {
  testing::TempDir dir;
  const std::string matrix = OneDatasetMatrix(dir, "[ { spec = \"blas\" }, { spec = \"torch\" } ]");
  const std::string first = dir.file("out") + "/cells/d__blas__t1__r1.json";
  RunOptions o = ScriptedRun(dir, matrix,
                             "#!/bin/sh\n[ \"$3\" = torch ] && echo garbage > " + first +
                                 "\necho '{\"status\":\"ok\",\"spec\":\"'$3'\","
                                 "\"train_seconds\":1.25,\"metric_value\":0.5}'\n");
  const RunOutcome fresh = RunMatrix(o, BuiltinEngines());
  EXPECT_EQ(fresh.failed, 0);
  EXPECT_EQ(fresh.cell_files_read, 0u);
  const std::vector<CellResult> rows = ReadResultsCsv(o.out_dir + "/results.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].spec, "blas");
  EXPECT_EQ(rows[0].train_seconds, 1.25);
  std::ifstream report(o.out_dir + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("| `blas` |"), std::string::npos) << md;
  EXPECT_THROW(WriteReport({{o.out_dir}, dir.file("again"), "", "", false, ""}, BuiltinEngines()),
               DataError);

  o.resume = true;  // the garbage is a cell that did not finish: it runs again, the other not
  const RunOutcome resumed = RunMatrix(o, BuiltinEngines());
  EXPECT_EQ(resumed.failed, 0);
  EXPECT_EQ(resumed.cell_files_read, 2u);
}

// The report of a run is the report of its directory: `sparsebench report DIR` writes the
// run's report.md byte for byte.
TEST(RunMatrix, ItsReportIsWhatReportWritesFromItsDirectory) {
  testing::TempDir dir;
  const std::string matrix = OneDatasetMatrix(dir, "[ { spec = \"blas\" }, { spec = \"sparse\" } ]",
                                              "target = \"dense-1pt\"\n");
  // A failed cell's reason quotes its log, whose bytes need not be UTF-8.
  const RunOptions o = ScriptedRun(
      dir, matrix,
      "#!/bin/sh\nif [ \"$3\" = sparse ]; then printf 'error: cannot read \\377 here\\n' >&2; "
      "exit 1; fi\necho '{\"status\":\"ok\",\"spec\":\"'$3'\",\"train_seconds\":0.1234567891234,"
      "\"metric_value\":0.3,\"curve\":[[0.1,1,0.3,null,null]]}'\n");
  ASSERT_EQ(RunMatrix(o, BuiltinEngines()).failed, 1);
  WriteReport({{o.out_dir}, dir.file("again"), "", "", false, ""}, BuiltinEngines());
  for (const char* file : {"/report.md", "/results.csv", "/curves.csv"}) {
    std::ifstream a(o.out_dir + file), b(dir.file("again") + file);
    const std::string run((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
    const std::string report((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(run.empty()) << file;
    EXPECT_EQ(run, report) << file;
  }
}

}  // namespace
}  // namespace sparsebench
