#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#ifdef __linux__
#include <sys/prctl.h>
#include <unistd.h>
#endif
#include <exception>
#include <stdexcept>

#include "datasets/data_error.h"
#include "harness/cli/commands.h"

namespace {

// A matrix cell dies with the `sparsebench run` that started it (SPARSEBENCH_CELL holds its
// pid), even when that is killed. A runner that died before this process got here sends no
// signal, so the parent is checked after asking for one.
bool OrphanedCell() {
#ifdef __linux__
  const char* runner = std::getenv("SPARSEBENCH_CELL");
  if (runner == nullptr) return false;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return std::strtol(runner, nullptr, 10) != static_cast<long>(getppid());
#else
  return false;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (OrphanedCell()) {
    fmt::print(stderr, "error: the sparsebench run that started this cell has ended\n");
    return 2;
  }
  CLI::App app{"SparseBench: LSH-sparse training against dense baselines, measured the same way"};
  app.require_subcommand(1);
  sparsebench::cli::AddDataCommands(app);
  sparsebench::cli::AddTrainCommand(app);
  sparsebench::cli::AddBenchCommands(app);
  sparsebench::cli::AddPredictCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const sparsebench::cli::RegressionFound&) {
    return 1;
  } catch (const sparsebench::DataError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
