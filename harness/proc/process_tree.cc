#include "harness/proc/process_tree.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace sparsebench {
namespace {

std::optional<double> ProportionalSetMb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
  std::string key;
  double kb = 0;
  while (in >> key) {
    if (key == "Pss:" && in >> kb) return kb / 1024.0;
    in.ignore(1 << 16, '\n');
  }
  return std::nullopt;
}

std::vector<ProcessInfo> Members(const std::vector<ProcessInfo>& all, int root, bool with_root) {
  std::vector<ProcessInfo> members = Descendants(all, root);
  if (!with_root) return members;
  std::set<int> seen;
  for (const ProcessInfo& p : members) seen.insert(p.pid);
  for (const ProcessInfo& p : all) {
    if (p.state != 'Z' && (p.pid == root || p.session == root) && seen.insert(p.pid).second)
      members.push_back(p);
  }
  return members;
}

bool WaitUntilNoDescendants(int root, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!Descendants(ListProcesses(), root).empty()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    usleep(20000);
  }
  return true;
}

}  // namespace

std::vector<ProcessInfo> Descendants(const std::vector<ProcessInfo>& all, int root) {
  std::multimap<int, const ProcessInfo*> children;
  for (const ProcessInfo& p : all) children.emplace(p.parent, &p);
  std::vector<ProcessInfo> found;
  std::vector<int> todo{root};
  std::set<int> visited{root};
  while (!todo.empty()) {
    const int parent = todo.back();
    todo.pop_back();
    const auto [begin, end] = children.equal_range(parent);
    for (auto it = begin; it != end; ++it) {
      const ProcessInfo& child = *it->second;
      if (!visited.insert(child.pid).second) continue;
      todo.push_back(child.pid);
      if (child.state != 'Z') found.push_back(child);
    }
  }
  return found;
}

TreeMeter::TreeMeter(int root, bool with_root) : root_(root), with_root_(with_root) {}

TreeUsage TreeMeter::Sample(bool memory) {
  const std::vector<ProcessInfo> all = ListProcesses();
  const auto now = Clock::now();
  TreeUsage usage;
  for (const ProcessInfo& p : all) {
    if (p.pid == root_ && !with_root_) usage.cpu_seconds += p.children_cpu_seconds;
  }
  const std::vector<ProcessInfo> members = Members(all, root_, with_root_);
  for (const ProcessInfo& p : members) usage.cpu_seconds += p.cpu_seconds;
  usage.processes = members.size();
  if (!memory) return usage;
  // A fork shares the parent's pages with the new process: the parent is read again. A process
  // is read whenever its parent is, so that pages they share are never counted from two
  // moments (a child's old reading beside its parent's new one, after the child let go).
  std::map<int, unsigned long long> started;
  for (const ProcessInfo& p : all) started[p.pid] = p.start_ticks;
  const auto parent_of = [&](const ProcessInfo& p) { return Key{p.parent, started[p.parent]}; };
  for (const ProcessInfo& p : members) {
    if (!readings_.contains({p.pid, p.start_ticks})) readings_.erase(parent_of(p));
  }
  std::set<Key> due;
  for (const ProcessInfo& p : members) {
    const auto it = readings_.find({p.pid, p.start_ticks});
    if (it == readings_.end() || now >= it->second.next) due.insert({p.pid, p.start_ticks});
  }
  for (const ProcessInfo& p : members) {
    if (due.contains(parent_of(p))) readings_.erase({p.pid, p.start_ticks});
  }
  std::map<Key, Reading> kept;
  for (const ProcessInfo& p : members) {
    const double mb = MemoryMb(p, now);
    usage.memory_mb += mb;
    if (p.pid == root_) usage.root_memory_mb = mb;
    kept.insert(readings_.extract({p.pid, p.start_ticks}));
  }
  readings_ = std::move(kept);  // the ended ones' go
  return usage;
}

double TreeMeter::MemoryMb(const ProcessInfo& p, Clock::time_point now) {
  Reading& r = readings_[{p.pid, p.start_ticks}];
  if (now >= r.next) {
    const auto start = Clock::now();
    const std::optional<double> pss = ProportionalSetMb(p.pid);
    r = {pss.value_or(p.rss_mb), p.rss_mb, Clock::now() + 100 * (Clock::now() - start)};
  }
  return std::max(0.0, r.pss_mb + p.rss_mb - r.rss_mb);
}

size_t StopTree(int root, double grace_seconds) {
  const std::vector<ProcessInfo> running = Descendants(ListProcesses(), root);
  if (running.empty()) return 0;
  for (const ProcessInfo& p : running) kill(p.pid, SIGTERM);
  if (!WaitUntilNoDescendants(root, grace_seconds)) KillTree(root, false);
  if (!WaitUntilNoDescendants(root, 1.0)) {
    throw std::runtime_error(std::to_string(Descendants(ListProcesses(), root).size()) +
                             " processes still running after SIGKILL");
  }
  return running.size();
}

void KillTree(int root, bool with_root) {
  // Freeze until a listing finds no process not yet frozen, so that none is started unseen,
  // then kill them all.
  std::set<int> frozen;
  for (int round = 0; round < 100; ++round) {
    bool more = false;
    for (const ProcessInfo& p : Members(ListProcesses(), root, with_root)) {
      if (frozen.insert(p.pid).second) more = true, kill(p.pid, SIGSTOP);
    }
    if (!more) break;
  }
  for (int pid : frozen) kill(pid, SIGKILL);
}

}  // namespace sparsebench
