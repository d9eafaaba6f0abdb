#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sparsebench {

struct ProcessResult {
  int exit_code = 0;  // meaningful when signal == 0
  int signal = 0;     // the signal that ended the process, 0 when it exited
  double seconds = 0;
  std::string stopped_by;  // "timeout" or "memory" when RunProcess killed it
  // Of the child, its session and every process it started (proportional set sizes summed,
  // harness/proc/process_tree.h), sampled under limits.
  double peak_rss_mb = 0;
  bool ok() const { return signal == 0 && exit_code == 0; }
  std::string Describe() const;  // "exit status 1" or "signal 6 (Aborted)"
};

// `name` itself when it contains a '/', else the first executable file of that name in PATH;
// empty when there is none.
std::string FindExecutable(const std::string& name);

// Runs argv[0] (a path; no shell) with stdin from /dev/null and stdout and stderr written to
// the given files, and waits for it. Throws std::runtime_error when it cannot be started.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::filesystem::path& stdout_file,
                         const std::filesystem::path& stderr_file);

// Bounds for a child's process group (it and whatever it starts): wall seconds and resident
// memory (sampled), each 0 for none; on_poll(seconds, pid) is called about every 0.1 s
// while it runs.
struct ProcessLimits {
  double seconds = 0;
  double memory_mb = 0;
  std::function<void(double seconds, int pid)> on_poll;
  std::vector<std::string> extra_env;  // "NAME=value" added to this process's environment
};

// RunProcess in a session of its own. Past a limit, the child, every process of its session
// and every descendant (in whatever session) are frozen and killed; when the child ends,
// whatever it left running in its session is stopped (StopProcesses).
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::filesystem::path& stdout_file,
                         const std::filesystem::path& stderr_file, const ProcessLimits& limits);

// One process as /proc/PID/stat shows it.
struct ProcessInfo {
  int pid = 0, parent = 0, group = 0, session = 0;
  char state = '?';                 // 'Z': ended, not yet waited for
  double cpu_seconds = 0;           // user + system, its own and its waited-for children's
  double children_cpu_seconds = 0;  // the part of cpu_seconds its waited-for children used
  // When it started (clock ticks after boot): with pid, its identity.
  unsigned long long start_ticks = 0;
  double rss_mb = 0;
};
// Every process /proc lists (none where there is no /proc).
std::vector<ProcessInfo> ListProcesses();

// Stops every live process `which` selects: SIGTERM, up to `grace_seconds` for them to end,
// then SIGKILL, then up to a second more. Returns how many were running before the TERM;
// throws std::runtime_error if some are still running after that.
size_t StopProcesses(const std::function<bool(const ProcessInfo&)>& which, double grace_seconds);

// argv as a shell would need it typed, for messages.
std::string CommandLine(const std::vector<std::string>& argv);

// At most the last `max_bytes` of a file; empty when it cannot be read.
std::string FileTail(const std::filesystem::path& file, size_t max_bytes);

}  // namespace sparsebench
