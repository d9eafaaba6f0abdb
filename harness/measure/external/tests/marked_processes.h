#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "harness/proc/subprocess.h"

namespace sparsebench {

// This test process's mark, in the environment of every engine it starts and of their children
// (tests run in parallel, so command lines do not tell whose a process is).
inline std::string Mark() { return "BROKEN_TOKEN=" + std::to_string(getpid()); }
inline void MarkEngines() { setenv("BROKEN_TOKEN", std::to_string(getpid()).c_str(), 1); }

// Processes still running, other than this one, that carry Mark().
inline int MarkedProcessesRunning() {
  int found = 0;
  for (const ProcessInfo& p : ListProcesses()) {
    std::ifstream in("/proc/" + std::to_string(p.pid) + "/environ");
    std::stringstream environ;
    environ << in.rdbuf();
    found += p.state != 'Z' && p.pid != getpid() &&
             environ.str().find(Mark() + '\0') != std::string::npos;
  }
  return found;
}

}  // namespace sparsebench
