// The sparsebench binary as a user runs it: exit codes and what it prints.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <array>
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

TEST(Cli, BadArgumentsExitTwo) {
  EXPECT_EQ(RunCli("data gen --preset nope --out /tmp/x").exit_code, 2);
  EXPECT_EQ(RunCli("data check --format weird x").exit_code, 2);
  EXPECT_EQ(RunCli("data check /nonexistent/file.txt").exit_code, 2);
  EXPECT_EQ(RunCli("").exit_code, 2);
}

}  // namespace
}  // namespace sparsebench
