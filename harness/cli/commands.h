#pragma once

#include <CLI/CLI.hpp>

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

// `compare` found a regression: Run returns 1 without an error message.
struct RegressionFound {};

}  // namespace sparsebench::cli
