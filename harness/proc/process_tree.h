#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "harness/proc/subprocess.h"

namespace sparsebench {

// The live processes (not ended) among `all` that descend from `root`, root left out.
std::vector<ProcessInfo> Descendants(const std::vector<ProcessInfo>& all, int root);

// What a process tree uses now.
struct TreeUsage {
  double cpu_seconds = 0;  // user + system since each started, the ended ones included
  double memory_mb = 0;    // proportional set size: a page shared by n of them counts 1/n each
  double root_memory_mb = 0;  // of it, root's own (with root)
  size_t processes = 0;
};

// Meters `root`'s descendants (with `with_root`, root itself and every process of its session
// too). CPU of processes that ended is there once their parent, or root, has waited for them
// (a subreaper root, harness/measure/external/engine_keeper.cc, waits for every orphan). Memory is
// the sum of proportional set sizes (/proc/PID/smaps_rollup; resident size where that cannot
// be read), so pages shared after a fork count once. Reading a large process's smaps costs
// about 10 ms a GB, so each process is read again only after 100 times what its last reading
// took, when it forks (its pages are then shared with the child) and whenever its parent is
// read; between readings its figure follows its resident size.
class TreeMeter {
 public:
  TreeMeter(int root, bool with_root);
  // The tree's usage now; with `memory` false, CPU only (memory_mb 0), at the cost of reading
  // each process's /proc/PID/stat.
  TreeUsage Sample(bool memory = true);

 private:
  using Clock = std::chrono::steady_clock;
  using Key = std::pair<int, unsigned long long>;  // a process: its pid and start
  struct Reading {
    double pss_mb = 0, rss_mb = 0;
    Clock::time_point next;
  };
  double MemoryMb(const ProcessInfo& p, Clock::time_point now);

  int root_;
  bool with_root_;
  std::map<Key, Reading> readings_;
};

// Stops `root`'s descendants: SIGTERM, up to `grace_seconds` for them to end, then every one
// left is frozen (SIGSTOP, so none can start another) and killed. Returns how many were running
// before the TERM; throws std::runtime_error if some still run after that.
size_t StopTree(int root, double grace_seconds);

// Freezes and kills `root`'s descendants (and root itself with `with_root`) at once.
void KillTree(int root, bool with_root);

}  // namespace sparsebench
