// `sparsebench run` with misbehaving external engines: each is a row with its status, the
// well-behaved rows are intact, and no process of any engine is left.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "baselines/temp_dir.h"
#include "datasets/tests/test_paths.h"
#include "harness/measure/external/tests/marked_processes.h"
#include "harness/record/results_csv.h"
#include "harness/run/runner.h"
#include "harness/cli/engines.h"

namespace sparsebench {
namespace {

const std::string kBroken =
    SPARSEBENCH_SOURCE_DIR "/harness/measure/external/tests/engines/broken.py";

// An executable that runs broken.py in `mode`.
std::string Wrapper(const testing::TempDir& dir, const std::string& mode) {
  const std::string path = dir.file(mode + ".sh");
  std::ofstream(path) << "#!/bin/sh\nBROKEN_MODE=" << mode << " exec " << kBroken << " \"$@\"\n";
  chmod(path.c_str(), 0755);
  return path;
}

TEST(ExecRun, MisbehavingEnginesAreRowsAndLeaveNoProcess) {
  testing::TempDir dir;
  MarkEngines();
  const std::string matrix = dir.file("m.toml");
  std::ofstream(matrix) << R"(
name = "external"
threads = [1]
max_seconds = 20
max_memory_mb = 2000
evals_per_epoch = 1
eval_sample = 100
latency_samples = 10
[[datasets]]
preset = "amazon670k"
scale = 0.003
target = 0.01
engines = [
  { name = "null", spec = "exec:null" },
  { name = "hang", spec = "exec:)" +
                               Wrapper(dir, "hang") + R"(" },
  { name = "memory", spec = "exec:)" +
                               Wrapper(dir, "memory") + R"(,hog_mb=3000" },
  { name = "duplicate", spec = "exec:)" +
                               Wrapper(dir, "duplicate") + R"(" },
  { name = "escape_memory", spec = "exec:)" +
                               Wrapper(dir, "escape_memory") + R"(,hog_mb=3000" },
  { name = "shared", spec = "exec:)" +
                               Wrapper(dir, "fork_shared") + R"(,hog_mb=300" },
]
)";
  RunOptions o;
  o.matrix_path = matrix;
  o.out_dir = dir.file("out");
  o.data_dir = dir.file("data");
  o.binary = SPARSEBENCH_BINARY;
  EXPECT_EQ(RunMatrix(o, BuiltinEngines()).failed, 4);
  const auto rows = ReadResultsCsv(o.out_dir + "/results.csv");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].status, CellStatus::kOk) << rows[0].reason;
  EXPECT_EQ(rows[1].status, CellStatus::kTimeout) << rows[1].reason;
  EXPECT_EQ(rows[2].status, CellStatus::kOom) << rows[2].reason;
  EXPECT_EQ(rows[3].status, CellStatus::kInvalid) << rows[3].reason;
  EXPECT_NE(rows[3].reason.find("label id 0 twice"), std::string::npos) << rows[3].reason;
  // 3,000 MB held by a grandchild in a session of its own (double fork, setsid, SIGTERM
  // ignored) count against max_memory_mb; the grandchild is stopped with the cell.
  EXPECT_EQ(rows[4].status, CellStatus::kOom) << rows[4].reason;
  // The row's peak is the cell's: the engine's 300 MB (shared with its child after a fork,
  // counted once) and the harness process's own, together.
  EXPECT_EQ(rows[5].status, CellStatus::kOk) << rows[5].reason;
  EXPECT_GE(rows[5].peak_rss_mb.value_or(0), 305.0);
  EXPECT_EQ(MarkedProcessesRunning(), 0);
}

}  // namespace
}  // namespace sparsebench
