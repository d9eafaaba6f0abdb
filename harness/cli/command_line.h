#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>

#include "engine/api/engine_family.h"
#include "harness/cli/engines.h"
#include "harness/cli/number_options.h"

namespace sparsebench::cli {

// The sparsebench command line: every subcommand, and the numeric options they read.
class CommandLine {
 public:
  // The engine families the commands know (a copy): the built-in ones, or more (tests).
  explicit CommandLine(const EngineRegistry& engines);

  // Parses argv, runs the chosen subcommand and returns the exit status: 0; 1 when `compare`
  // finds a regression or something fails that is not the user's doing; 2 for the user's
  // mistake (a bad option, file or spec), said on `err` as "error: reason".
  int Run(int argc, const char* const* argv, std::FILE* err = stderr);

  // From now on a subcommand parses its options and does nothing more (tests, fuzzing).
  void ParseOnly();

  const NumberOptions& numbers() const { return numbers_; }
  CLI::App& app() { return app_; }

 private:
  EngineRegistry engines_;  // the subcommands' callbacks refer to it
  CLI::App app_;
  NumberOptions numbers_;
};

}  // namespace sparsebench::cli
