#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "harness/cli/engines.h"
#include "harness/cli/number_options.h"

namespace sparsebench::cli {

// Each Add*Commands registers subcommands whose callbacks do the work, their numeric options
// through `numbers`; a callback reports a user's mistake by throwing (DataError,
// std::invalid_argument), which CommandLine::Run turns into exit 2.
void AddDataCommands(CLI::App& app, NumberOptions& numbers);
void AddTrainCommand(CLI::App& app, NumberOptions& numbers, const EngineRegistry& engines);
void AddBenchCommands(CLI::App& app, NumberOptions& numbers,
                      const EngineRegistry& engines);  // run, report, compare, engines
void AddPredictCommand(CLI::App& app, NumberOptions& numbers);
// history add, show, check, annotate.
void AddHistoryCommands(CLI::App& app, NumberOptions& numbers, const EngineRegistry& engines);

// `compare` found a regression: Run returns 1 without an error message.
struct RegressionFound {};

// A command with exit codes of its own (`history check`: 1 regression, 2 suspect, 3 error):
// Run prints `message` (when any) as an error and returns `code`.
struct ExitWith {
  int code = 0;
  std::string message;
};

// `history check`'s code for an error, its options' included.
constexpr int kHistoryCheckError = 3;

}  // namespace sparsebench::cli
