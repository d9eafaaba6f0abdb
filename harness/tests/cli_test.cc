// The sparsebench binary as a user runs it: exit codes and what it prints.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <string>

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
  for (const char* key : {"\"engine\":\"sparse:hidden=32,out_sparsity=0.05,hash=dwta", "\"dataset\":",
                          "\"threads\":1", "\"epochs\":2", "\"train_seconds\":", "\"eval_seconds\":",
                          "\"samples_per_second\":", "\"p_at_1\":", "\"p_at_3\":", "\"p_at_5\":",
                          "\"accuracy\":null", "\"peak_rss_mb\":", "\"status\":\"ok\""}) {
    EXPECT_NE(json_lines[0].find(key), std::string::npos) << key << "\n" << r.output;
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

}  // namespace
}  // namespace sparsebench
