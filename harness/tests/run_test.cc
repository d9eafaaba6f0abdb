// `sparsebench run` as users rely on it: a cell killed mid-run becomes a row with its
// reason, the other rows stay intact, and --resume completes the matrix.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "datasets/tests/test_paths.h"
#include "harness/results.h"

extern char** environ;

namespace sparsebench {
namespace {

namespace fs = std::filesystem;

const char* kMatrix = R"(
name = "kill"
threads = [1]
max_seconds = 120
evals_per_epoch = 1
eval_sample = 100
latency_samples = 10
[[datasets]]
preset = "amazon670k"
scale = 0.003
target = 0.01
engines = [
  { name = "first", spec = "sparse:out_sparsity=0.05", epochs = 1, batch = 64 },
  { name = "slow", spec = "sparse:out_sparsity=0.05", epochs = 40, batch = 64 },
  { name = "last", spec = "blas:hidden=16", epochs = 1, batch = 64 },
]
)";

int RunBinary(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Kills the slow cell's process as soon as its pid file appears.
void KillSlowCellWhenItStarts(const fs::path& pid_file) {
  for (int i = 0; i < 1200 && !fs::exists(pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::ifstream in(pid_file);
  int pid = 0;
  in >> pid;
  ASSERT_GT(pid, 0) << "the slow cell never started";
  kill(pid, SIGKILL);
}

TEST(RunMatrix, KilledCellIsReportedAndResumeCompletesTheMatrix) {
  testing::TempDir dir;
  const std::string matrix = dir.file("m.toml"), out = dir.file("out");
  std::ofstream(matrix) << kMatrix;
  const std::vector<std::string> command = {SPARSEBENCH_BINARY, "run", "--matrix", matrix, "--out", out, "--data", dir.file("data")};
  std::thread killer(KillSlowCellWhenItStarts, fs::path(out) / "cells" / "amazon670k__slow__t1__r1.pid");
  EXPECT_EQ(RunBinary(command), 0);
  killer.join();

  auto rows = ReadResultsCsv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["status"], "ok");
  EXPECT_EQ(rows[1]["status"], "crash");
  EXPECT_NE(rows[1]["reason"].get<std::string>().find("signal 9"), std::string::npos) << rows[1]["reason"];
  EXPECT_EQ(rows[2]["status"], "ok");
  const auto first_time = fs::last_write_time(out + "/cells/amazon670k__first__t1__r1.json");

  std::vector<std::string> resume = command;
  resume.push_back("--resume");
  EXPECT_EQ(RunBinary(resume), 0);
  rows = ReadResultsCsv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) EXPECT_EQ(row["status"], "ok") << row["cell_id"];
  EXPECT_EQ(fs::last_write_time(out + "/cells/amazon670k__first__t1__r1.json"), first_time);  // skipped
  EXPECT_TRUE(fs::exists(out + "/report.md"));
}

// The limit is far above what the quick cells need even on a busy machine (they take well
// under a second when idle) and far below what the slow one needs (10,000 epochs).
TEST(RunMatrix, TimeLimitBecomesATimeoutRow) {
  testing::TempDir dir;
  const std::string matrix = dir.file("m.toml"), out = dir.file("out");
  std::string text = kMatrix;
  text.replace(text.find("max_seconds = 120"), 17, "max_seconds = 15");
  text.replace(text.find("epochs = 40"), 11, "epochs = 10000");
  std::ofstream(matrix) << text;
  EXPECT_EQ(RunBinary({SPARSEBENCH_BINARY, "run", "--matrix", matrix, "--out", out, "--data", dir.file("data")}), 0);
  const auto rows = ReadResultsCsv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1]["status"], "timeout");
  EXPECT_EQ(rows[2]["status"], "ok");
}

TEST(RunMatrix, ShardsMergeIntoOneReport) {
  testing::TempDir dir;
  const std::string matrix = dir.file("m.toml");
  std::string text = kMatrix;
  text.replace(text.find("epochs = 40"), 11, "epochs = 1");
  std::ofstream(matrix) << text;
  for (const char* shard : {"0/2", "1/2"}) {
    const std::string out = dir.file(std::string("shard") + shard[0]);
    EXPECT_EQ(RunBinary({SPARSEBENCH_BINARY, "run", "--matrix", matrix, "--out", out, "--data", dir.file("data"), "--shard", shard}), 0);
  }
  EXPECT_EQ(ReadResultsCsv(dir.file("shard0") + "/results.csv").size(), 2u);  // cells 0 and 2
  EXPECT_EQ(ReadResultsCsv(dir.file("shard1") + "/results.csv").size(), 1u);
  EXPECT_EQ(RunBinary({SPARSEBENCH_BINARY, "report", dir.file("shard0"), dir.file("shard1"), "--out", dir.file("merged")}), 0);
  const auto rows = ReadResultsCsv(dir.file("merged") + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  std::ifstream report(dir.file("merged") + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(report)), {});
  for (const char* engine : {"`first`", "`slow`", "`last`"}) EXPECT_NE(md.find(engine), std::string::npos) << engine;
}

}  // namespace
}  // namespace sparsebench
