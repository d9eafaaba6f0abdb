#pragma once

#include <CLI/CLI.hpp>

namespace sparsebench::cli {

// Each Add*Commands registers subcommands whose callbacks do the work; a callback reports
// a user's mistake by throwing (DataError, std::invalid_argument), which main turns into exit 2.
void AddDataCommands(CLI::App& app);
void AddTrainCommand(CLI::App& app);
void AddBenchCommands(CLI::App& app);  // run, report, compare
void AddPredictCommand(CLI::App& app);

// `compare` found a regression: main exits 1 without an error message.
struct RegressionFound {};

}  // namespace sparsebench::cli
