// The harness's own files: every result goes through a temporary file and a rename, and the
// readers of run directories and matrices open only regular files of a bounded size.
#include "harness/record/files.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"
#include "harness/record/csv.h"
#include "harness/record/results_csv.h"
#include "harness/record/rows.h"
#include "harness/report/compare.h"
#include "harness/run/matrix.h"
#include "harness/run/run_results.h"

namespace sparsebench {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Runs `body` in a child process whose files may not grow past 4 KiB, as on a full disk
// (writes past the limit fail with EFBIG); its exit status.
int WithFullDisk(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::_exit(body());
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Issue 13: a results file was written through "PATH.tmp.PID" with an ofstream whose close
// was never checked; a full disk left that file behind, and a destination that could not be
// replaced threw std::filesystem_error without saying which result was lost.
TEST(WriteFileAtomically, AFailedWriteKeepsTheOldFileAndLeavesNothingBehind) {
  testing::TempDir dir;
  const std::string path = dir.file("results.csv");
  WriteFileAtomically(path, "old\n");
  const int status = WithFullDisk([&] {
    try {
      WriteFileAtomically(path, std::string(1 << 20, 'x'));
      return 1;
    } catch (const DataError& e) {
      return e.file() == path ? 0 : 2;
    } catch (...) {
      return 3;
    }
  });
  EXPECT_EQ(status, 0);
  EXPECT_EQ(Read(path), "old\n");
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"results.csv"});

  fs::create_directory(dir.file("report.md"));  // a destination that cannot be replaced
  try {
    WriteFileAtomically(dir.file("report.md"), "# report\n");
    ADD_FAILURE() << "wrote onto a directory";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), dir.file("report.md"));
  }
  EXPECT_EQ(Entries(dir.path()), (std::vector<std::string>{"report.md", "results.csv"}));
}

TEST(WriteFileAtomically, NewFilesGetTheUsualPermissions) {
  testing::TempDir dir;
  const mode_t mask = ::umask(022);
  WriteFileAtomically(dir.file("a.json"), "{}\n");
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("a.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(Read(dir.file("a.json")), "{}\n");
}

// Issue 13: a FIFO among a run directory's files, as a results.csv or as a matrix blocked
// `report`, `compare` and `run` forever in open().
TEST(RunDirectoryReaders, OpenOnlyRegularFiles) {
  testing::TempDir dir;
  fs::create_directories(dir.file("run/cells"));
  const std::string cell = dir.file("run/cells/d__e__t1__r1.json"), csv = dir.file("results.csv"),
                    matrix = dir.file("m.toml");
  for (const std::string& fifo : {cell, csv, matrix})
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << fifo;
  ::alarm(60);  // the old readers never return: end the test rather than hang the suite
  const std::vector<std::pair<std::string, std::function<void()>>> readers = {
      {cell, [&] { LoadRows({dir.file("run")}, BuiltinEngines()); }},
      {cell, [&] { RunResults results(dir.file("run"), BuiltinEngines()); }},
      {csv, [&] { ReadResultsCsv(csv); }},
      {csv, [&] {
         Compare({csv, csv}, BuiltinEngines()); }},
      {matrix, [&] { ReadMatrix(matrix, BuiltinEngines()); }},
  };
  for (const auto& [file, read] : readers) {
    try {
      read();
      ADD_FAILURE() << "read " << file;
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), file);
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
  ::alarm(0);
}

// --resume skips a cell only when its file is a valid row that says ok; a file with a status
// that is not text threw nlohmann's type_error out of `run`, and a row that `report` refuses
// (threads "two") was skipped, so the run could never make its report.
TEST(RunDirectoryReaders, ResumeRerunsCellsWhoseFileIsNotAValidOkRow) {
  testing::TempDir dir;
  fs::create_directories(dir.file("run/cells"));
  const std::vector<std::pair<std::string, bool>> cases = {
      {R"({"status": "ok", "threads": 2})", true},
      {R"({"status": "crash"})", false},
      {R"({"status": 1})", false},
      {R"({"status": "ok", "threads": "two"})", false},
      {R"({"status": "ok", "curve": [[1]]})", false},
      {"not json", false},
  };
  for (size_t i = 0; i < cases.size(); ++i)
    std::ofstream(dir.file("run/cells/" + std::to_string(i) + ".json")) << cases[i].first;
  const RunResults results(dir.file("run"), BuiltinEngines());
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(results.Finished(std::to_string(i)), cases[i].second) << cases[i].first;
  EXPECT_FALSE(results.Finished("missing"));
}

// A cell file or matrix far larger than any the harness writes is refused by its size, before
// it is read into memory.
TEST(RunDirectoryReaders, RefuseOversizedFiles) {
  testing::TempDir dir;
  const std::string matrix = dir.file("m.toml");
  std::ofstream(matrix) << std::string(kMaxMatrixBytes + 1, '#');
  try {
    ReadMatrix(matrix, BuiltinEngines());
    ADD_FAILURE() << "read a matrix of " << kMaxMatrixBytes + 1 << " bytes";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), matrix);
    EXPECT_NE(std::string(e.what()).find("not a matrix"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ReadRegularFile(matrix, kMaxMatrixBytes + 1, "x").size(), kMaxMatrixBytes + 1);
}

}  // namespace
}  // namespace sparsebench
