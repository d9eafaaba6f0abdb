// The sparsebench binary as a user runs it: exit codes and what it prints.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "baselines/temp_dir.h"
#include "datasets/tests/test_paths.h"

namespace sparsebench {
namespace {

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

Result RunCli(const std::string& args) {
  const std::string command = std::string(SPARSEBENCH_BINARY) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  Result result{-1, ""};
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t got;
  while ((got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), got);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// A shell command line as it is (pipes, redirections), stdout and stderr together.
Result RunShell(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  Result result{-1, ""};
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t got;
  while ((got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), got);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TEST(Cli, HelpOnEachCommand) {
  for (const char* cmd : {"--help", "data --help", "data gen --help", "data check --help"}) {
    Result r = RunCli(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << cmd;
  }
}

TEST(Cli, GenThenCheckPrintsStatistics) {
  testing::TempDir dir;
  Result gen = RunCli("data gen --preset amazon670k --scale 0.002 --seed 4 --out " + dir.path());
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  Result check = RunCli("data check " + dir.file("train.txt"));
  ASSERT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("rows                 981"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("label frequency"), std::string::npos);
}

TEST(Cli, BadInputExitsTwoWithFileAndLine) {
  const std::string file = testing::DataFile("xmc_nan.txt");
  Result r = RunCli("data check " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(file + ":3: value of feature 2 is not finite"), std::string::npos) << r.output;
}

TEST(Cli, TrainPrintsOneJsonLineWithTheResultKeys) {
  testing::TempDir dir;
  ASSERT_EQ(RunCli("data gen --preset amazon670k --scale 0.002 --out " + dir.path()).exit_code, 0);
  const std::string model = dir.file("model.spb");
  Result r = RunCli("train --engine sparse:hidden=32,out_sparsity=0.05 --train " + dir.file("train.txt") +
                    " --test " + dir.file("test.txt") + " --epochs 2 --lr 0.01 --batch 64 --save " + model);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> json_lines;  // stderr carries per-epoch progress; stdout one JSON line
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("{")) json_lines.push_back(line);
  }
  ASSERT_EQ(json_lines.size(), 1u) << r.output;
  for (const char* key : {"\"spec\":\"sparse:hidden=32,out_sparsity=0.05,", ",hash=dwta,",
                          "\"dataset\":", "\"threads\":1", "\"epochs\":2", "\"train_seconds\":",
                          "\"eval_seconds\":", "\"samples_per_second\":", "\"p_at_1\":",
                          "\"p_at_3\":", "\"p_at_5\":", "\"peak_rss_mb\":", "\"status\":\"ok\""}) {
    EXPECT_NE(json_lines[0].find(key), std::string::npos) << key << "\n" << r.output;
  }
  // A figure the cell does not have (accuracy of multi-label data) and the runner's are left out.
  for (const char* key : {"\"accuracy\":", "\"engine\":", "\"cell_id\":", "\"machine\":"}) {
    EXPECT_EQ(json_lines[0].find(key), std::string::npos) << key << "\n" << r.output;
  }
  EXPECT_TRUE(std::filesystem::exists(model));
}

TEST(Cli, TrainRejectsBadSpecsAndMismatchedFiles) {
  const std::string train = testing::DataFile("xmc_valid.txt");
  EXPECT_EQ(RunCli("train --engine sparse:hidden=-1 --train " + train + " --test " + train).exit_code, 2);
  EXPECT_EQ(RunCli("train --engine nosuch --train " + train + " --test " + train).exit_code, 2);
  const Result r = RunCli("train --engine sparse --train " + train + " --test " +
                          testing::DataFile("xmc_feature_out_of_range.txt"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("xmc_feature_out_of_range.txt:3: feature id 10 out of range"), std::string::npos)
      << r.output;
}

TEST(Cli, PredictAnswersEveryLineOfGarbage) {
  testing::TempDir dir;
  const std::string csv = testing::DataFile("csv_yelp.csv"), model = dir.file("text.spb");
  const Result train = RunCli("train --engine text:epochs=2,hidden=8 --train " + csv + " --test " + csv + " --save " + model);
  ASSERT_EQ(train.exit_code, 0) << train.output;
  {
    std::ofstream input(dir.file("in.txt"), std::ios::binary);
    input << "great food and friendly staff\n\n\xff\xfe\xc3 bad \x80\n" << std::string(10 << 20, 'a') << "\nok\n";
  }
  const Result r = RunCli("predict --model " + model + " --top-k 2 < " + dir.file("in.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  std::vector<std::string> lines;
  std::istringstream out(r.output);
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << r.output.substr(0, 2000);
  EXPECT_EQ(std::count(lines[0].begin(), lines[0].end(), '\t'), 4) << lines[0];  // two labels with scores
  EXPECT_EQ(lines[1], "2\terror: empty line");
  EXPECT_TRUE(lines[2].starts_with("3\t")) << lines[2];
  EXPECT_NE(lines[3].find("4\terror: line of 10485760 bytes"), std::string::npos) << lines[3];
  EXPECT_TRUE(lines[4].starts_with("5\t")) << lines[4];
  EXPECT_EQ(RunCli("predict --model " + csv + " < /dev/null").exit_code, 2);  // not a model file
}

TEST(Cli, BadArgumentsExitTwo) {
  EXPECT_EQ(RunCli("data gen --preset nope --out /tmp/x").exit_code, 2);
  EXPECT_EQ(RunCli("data check --format weird x").exit_code, 2);
  EXPECT_EQ(RunCli("data check /nonexistent/file.txt").exit_code, 2);
  EXPECT_EQ(RunCli("").exit_code, 2);
}

// Issue 13: libsvm sized D and L as max id + 1, which wrapped to 0 for id 4294967295: `data
// check` called the file valid or crashed in the label statistics, `train` crashed.
TEST(Cli, LibsvmIdsThatWouldWrapFailWithFileAndLine) {
  for (const char* name : {"libsvm_max_label.txt", "libsvm_max_feature.txt"}) {
    const std::string file = testing::DataFile(name);
    const Result check = RunCli("data check --format libsvm " + file);
    EXPECT_EQ(check.exit_code, 2) << check.output;
    EXPECT_NE(check.output.find("error: " + file + ":1: "), std::string::npos) << check.output;
    for (const char* engine : {"sparse", "blas"}) {
      const Result train = RunCli(std::string("train --engine ") + engine + " --format libsvm --train " + file + " --test " + file);
      EXPECT_EQ(train.exit_code, 2) << engine << "\n" << train.output;
      EXPECT_NE(train.output.find(file + ":1: "), std::string::npos) << train.output;
    }
  }
}

// Issue 13: header dimensions drove allocations before any check (a 16 GiB count array in
// `data check`, a network sized by D = 2^32 - 1 in `train`), ending in a bare bad_alloc.
TEST(Cli, HugeDimensionsFailBeforeAllocating) {
  const std::string huge = testing::DataFile("xmc_huge_features.txt");
  const Result header = RunCli("data check " + huge);
  EXPECT_EQ(header.exit_code, 2);
  EXPECT_NE(header.output.find(huge + ":1: header says D = 4294967295"), std::string::npos) << header.output;
  const std::string large = testing::DataFile("xmc_large_labels.txt");
  const Result check = RunCli("data check " + large);  // valid: L = 2^31 - 1, two rows
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("labels (L)           2147483647"), std::string::npos) << check.output;
  for (const char* engine : {"sparse", "blas"}) {
    const Result train = RunCli(std::string("train --engine ") + engine + " --train " + large + " --test " + large);
    EXPECT_EQ(train.exit_code, 2) << engine << "\n" << train.output;
    EXPECT_NE(train.output.find("more than this machine's"), std::string::npos) << train.output;
  }
  const std::string csv = testing::DataFile("csv_huge_label.csv");
  const Result text = RunCli("train --engine text --train " + csv + " --test " + csv);
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.output.find(csv + ":2: label 2147483648 is too large"), std::string::npos) << text.output;
}

std::string TrainSmallTextModel(const testing::TempDir& dir) {
  const std::string csv = testing::DataFile("csv_yelp.csv"), model = dir.file("text.spb");
  const Result train = RunCli("train --engine text:epochs=1,hidden=8 --train " + csv + " --test " + csv + " --save " + model);
  EXPECT_EQ(train.exit_code, 0) << train.output;
  return model;
}

// Issue 13: `predict < /dev/zero` grew without bound (the limit was checked after reading the
// whole line); now the limit applies while reading and binary input ends the run.
TEST(Cli, PredictLimitsLinesWhileReading) {
  testing::TempDir dir;
  const std::string model = TrainSmallTextModel(dir);
  const Result zero = RunCli("predict --model " + model + " < /dev/zero");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.output.find("error: <stdin>:1: NUL byte"), std::string::npos) << zero.output.substr(0, 500);
  // 50 MB without a newline through a 1 KB limit: counted, never stored.
  const Result endless = RunShell("head -c 50000000 /dev/zero | tr '\\0' a | " + std::string(SPARSEBENCH_BINARY) +
                                  " predict --model " + model + " --max-line-bytes 1000");
  EXPECT_EQ(endless.exit_code, 0) << endless.output.substr(0, 500);
  EXPECT_NE(endless.output.find("1\terror: line of 50000000 bytes is longer than --max-line-bytes 1000"), std::string::npos)
      << endless.output.substr(0, 500);
}

// Issue 13: a directory as model path gave "basic_filebuf::underflow ... Is a directory",
// /dev/zero as model was read until memory ran out, a FIFO blocked forever in open().
TEST(Cli, PredictRefusesModelsThatAreNotRegularFiles) {
  testing::TempDir dir;
  const Result directory = RunCli("predict --model " + dir.path() + " < /dev/null");
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_NE(directory.output.find("error: " + dir.path() + ": is a directory"), std::string::npos) << directory.output;
  const Result zero = RunCli("predict --model /dev/zero < /dev/null");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.output.find("error: /dev/zero: not a regular file"), std::string::npos) << zero.output;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Result blocked = RunCli("predict --model " + fifo + " < /dev/null");
  EXPECT_EQ(blocked.exit_code, 2);
  EXPECT_NE(blocked.output.find(fifo + ": not a regular file"), std::string::npos) << blocked.output;
  const Result data = RunCli("data check " + fifo);
  EXPECT_EQ(data.exit_code, 2);
  EXPECT_NE(data.output.find(fifo + ": not a regular file"), std::string::npos) << data.output;
}

// Issue 13: `cat f | predict --csv` failed with "/dev/stdin: not a regular file".
TEST(Cli, PredictCsvReadsAPipe) {
  testing::TempDir dir;
  const std::string model = TrainSmallTextModel(dir);
  const Result r = RunShell("cat " + testing::DataFile("csv_dbpedia.csv") + " | " + SPARSEBENCH_BINARY +
                            " predict --csv --model " + model);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::istringstream out(r.output);
  std::vector<std::string> lines;
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  EXPECT_TRUE(lines[0].starts_with("1\t")) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("2\t")) << lines[1];
}

// Issue 13: --save was checked only after training and truncated an existing model in place.
TEST(Cli, SaveDestinationIsCheckedBeforeTraining) {
  testing::TempDir dir;
  const std::string csv = testing::DataFile("csv_yelp.csv");
  for (const std::string& bad : {dir.file("missing/model.spb"), dir.path()}) {
    const Result r = RunCli("train --engine text:epochs=1,hidden=8 --train " + csv + " --test " + csv + " --save " + bad);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("error: " + bad + ": "), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("epoch"), std::string::npos) << "trained first:\n" << r.output;  // no progress line
  }
}

TEST(Cli, FailedSaveKeepsTheOldModel) {
  testing::TempDir dir;
  const std::string model = TrainSmallTextModel(dir), csv = testing::DataFile("csv_yelp.csv");
  std::ifstream in(model, std::ios::binary);
  const std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A 100 KiB file-size limit (with SIGXFSZ ignored) makes the write fail, as a full disk would.
  const Result r = RunShell("(trap '' XFSZ; ulimit -f 100; exec " + std::string(SPARSEBENCH_BINARY) +
                            " train --engine text:epochs=1,hidden=8 --seed 7 --train " + csv + " --test " + csv +
                            " --save " + model + ")");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("error: " + model + ": cannot write model file"), std::string::npos) << r.output;
  std::ifstream again(model, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), old);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

// Issue 13: an unknown preset or scale = 1e9 aborted mid-run without a file and line, after
// --out was made.
TEST(Cli, BadMatrixIsRefusedBeforeOutIsMade) {
  testing::TempDir dir;
  const std::string matrix = dir.file("m.toml"), out = dir.file("out");
  namespace fs = std::filesystem;
  for (const std::string& bad : {std::string("preset = \"amazon670k\"\nscale = 1e9\n"),
                                 std::string("preset = \"nope\"\n")}) {
    std::ofstream(matrix) << "[[datasets]]\n" << bad << "engines = [ { spec = \"blas\" } ]\n";
    const Result r =
        RunCli("run --matrix " + matrix + " --out " + out + " --data " + dir.file("data"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("error: " + matrix + ":"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out)) << r.output;
    EXPECT_FALSE(fs::exists(dir.file("data"))) << r.output;
  }
  std::ofstream(matrix) << "[[datasets]]\npreset = \"yelp\"\nengines = [ { spec = \"blas\" } ]\n";
  const Result many = RunCli("run --matrix " + matrix + " --out " + out + " --repeats 1000000000");
  EXPECT_EQ(many.exit_code, 2) << many.output;
  EXPECT_FALSE(fs::exists(out));
  std::ofstream(dir.file("file")) << "x";
  const Result file = RunCli("run --matrix " + matrix + " --out " + dir.file("file"));
  EXPECT_EQ(file.exit_code, 2) << file.output;
  EXPECT_NE(file.output.find("error: " + dir.file("file") + ": exists and is not a directory"),
            std::string::npos)
      << file.output;
}

}  // namespace
}  // namespace sparsebench
