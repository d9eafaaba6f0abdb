#include "harness/proc/process_tree.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

namespace sparsebench {
namespace {

ProcessInfo P(int pid, int parent, char state = 'S') {
  ProcessInfo p;
  p.pid = pid;
  p.parent = parent;
  p.state = state;
  return p;
}

std::vector<int> Pids(const std::vector<ProcessInfo>& processes) {
  std::vector<int> pids;
  for (const ProcessInfo& p : processes) pids.push_back(p.pid);
  std::sort(pids.begin(), pids.end());
  return pids;
}

TEST(ProcessTree, DescendantsAreTheLiveProcessesBelowTheRoot) {
  // 1 ─ 10 ─ 11 ─ 12, 10 ─ 13 (ended) ─ 14, and 20 beside 10
  const std::vector<ProcessInfo> all = {P(1, 0),        P(10, 1),  P(11, 10), P(12, 11),
                                        P(13, 10, 'Z'), P(14, 13), P(20, 1)};
  EXPECT_EQ(Pids(Descendants(all, 10)), (std::vector<int>{11, 12, 14}));
  EXPECT_EQ(Pids(Descendants(all, 12)), std::vector<int>{});
  EXPECT_EQ(Pids(Descendants(all, 1)), (std::vector<int>{10, 11, 12, 14, 20}));
}

// A child and a grandchild in a session of its own that ignore SIGTERM: StopTree finds both,
// and after it none is left.
TEST(ProcessTree, StopTreeEndsProcessesThatIgnoreSigterm) {
  const pid_t child = fork();
  if (child == 0) {
    signal(SIGTERM, SIG_IGN);
    if (fork() == 0) {
      setsid();
      signal(SIGTERM, SIG_IGN);
      pause();
      _exit(0);
    }
    pause();
    _exit(0);
  }
  for (int i = 0; i < 100 && Descendants(ListProcesses(), getpid()).size() < 2; ++i) usleep(10000);
  EXPECT_EQ(StopTree(child, 0.2), 1u);     // the grandchild, below the child
  EXPECT_EQ(StopTree(getpid(), 0.2), 1u);  // the child itself
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
}

}  // namespace
}  // namespace sparsebench
