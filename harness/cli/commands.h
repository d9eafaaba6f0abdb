#pragma once

#include <CLI/CLI.hpp>

namespace sparsebench::cli {

// Each Add*Commands registers subcommands whose callbacks do the work; a callback reports
// a user's mistake by throwing (DataError, std::invalid_argument), which main turns into exit 2.
void AddDataCommands(CLI::App& app);
void AddTrainCommand(CLI::App& app);

}  // namespace sparsebench::cli
