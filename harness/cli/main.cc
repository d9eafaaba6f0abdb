#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#ifdef __linux__
#include <sys/prctl.h>
#include <unistd.h>
#endif
#include "harness/cli/command_line.h"
#include "harness/cli/engines.h"

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
  sparsebench::cli::CommandLine command_line(sparsebench::BuiltinEngines());
  return command_line.Run(argc, argv);
}
