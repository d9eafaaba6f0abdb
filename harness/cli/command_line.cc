#include "harness/cli/command_line.h"

#include <fmt/format.h>

#include <exception>
#include <stdexcept>

#include "datasets/data_error.h"
#include "harness/cli/commands.h"

namespace sparsebench::cli {
namespace {

// Thrown once parsing is complete, before any subcommand runs, when only parsing was asked for.
struct ParsedOnly {};

// The exit status of an error: `code`, but `history check`'s own for an error in it.
int ErrorCode(CLI::App& app, int code) {
  const CLI::App* history = app.get_subcommand("history");
  return history->parsed() && history->get_subcommand("check")->parsed() ? kHistoryCheckError
                                                                         : code;
}

}  // namespace

CommandLine::CommandLine(const EngineRegistry& engines)
    : engines_(engines),
      app_("SparseBench: LSH-sparse training against dense baselines, measured the same way") {
  app_.require_subcommand(1);
  AddDataCommands(app_, numbers_);
  AddTrainCommand(app_, numbers_, engines_);
  AddBenchCommands(app_, numbers_, engines_);
  AddPredictCommand(app_, numbers_);
  AddHistoryCommands(app_, numbers_, engines_);
}

void CommandLine::ParseOnly() {
  app_.parse_complete_callback([] { throw ParsedOnly(); });
}

int CommandLine::Run(int argc, const char* const* argv, std::FILE* err) {
  try {
    app_.parse(argc, argv);
  } catch (const ParsedOnly&) {
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app_.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app_.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(err, "error: {}\nRun with --help for more information.\n", e.what());
    return ErrorCode(app_, 2);
  } catch (const RegressionFound&) {
    return 1;
  } catch (const ExitWith& e) {
    if (!e.message.empty()) fmt::print(err, "error: {}\n", e.message);
    return e.code;
  } catch (const DataError& e) {
    fmt::print(err, "error: {}\n", e.what());
    return ErrorCode(app_, 2);
  } catch (const std::invalid_argument& e) {  // ConfigError among them
    fmt::print(err, "error: {}\n", e.what());
    return ErrorCode(app_, 2);
  } catch (const std::exception& e) {
    fmt::print(err, "error: {}\n", e.what());
    return ErrorCode(app_, 1);
  }
  return 0;
}

}  // namespace sparsebench::cli
