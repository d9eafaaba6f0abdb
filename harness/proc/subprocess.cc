#include "harness/proc/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "harness/proc/process_tree.h"

extern char** environ;

namespace sparsebench {

std::string ProcessResult::Describe() const {
  if (signal != 0) return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(exit_code);
}

namespace {

bool IsExecutableFile(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string FindExecutable(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return IsExecutableFile(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (IsExecutableFile(candidate)) return candidate;
    if (colon == std::string_view::npos) return "";
    dirs.remove_prefix(colon + 1);
  }
}

namespace {

class SpawnActions {
 public:
  SpawnActions(const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file) {
    posix_spawn_file_actions_init(&actions_);
    posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions_, 1, stdout_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions_, 2, stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;

  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

int WaitFor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  return status;
}

}  // namespace

namespace {

ProcessResult Spawn(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file,
                    const std::filesystem::path& stderr_file, const ProcessLimits* limits) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const SpawnActions actions(stdout_file, stderr_file);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (limits != nullptr) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  }
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  if (limits != nullptr) {
    for (const std::string& extra : limits->extra_env)
      env.push_back(const_cast<char*>(extra.c_str()));
  }
  env.push_back(nullptr);
  const int error = posix_spawn(&pid, args[0], actions.get(), &attributes, args.data(), env.data());
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error("cannot run " + CommandLine(argv) + ": " + std::strerror(error));
  }
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  ProcessResult result;
  int status = 0;
  TreeMeter meter(pid, true);
  if (limits == nullptr) {
    status = WaitFor(pid);
  } else {
    for (int tick = 0;; ++tick) {
      const pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid) break;
      if (done < 0 && errno != EINTR)
        throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
      if (tick % 2 == 0)
        result.peak_rss_mb = std::max(result.peak_rss_mb, meter.Sample().memory_mb);
      const bool late = limits->seconds > 0 && elapsed() > limits->seconds;
      const bool big = limits->memory_mb > 0 && result.peak_rss_mb > limits->memory_mb;
      if ((late || big) && result.stopped_by.empty()) {
        result.stopped_by = late ? "timeout" : "memory";
        KillTree(pid, true);
      }
      if (limits->on_poll) limits->on_poll(elapsed(), static_cast<int>(pid));
      usleep(100000);
    }
  }
  if (limits != nullptr) {
    StopProcesses([pid](const ProcessInfo& p) { return p.session == pid; },
                  1.0);  // what it left running
  }
  result.seconds = elapsed();
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::filesystem::path& stdout_file,
                         const std::filesystem::path& stderr_file) {
  return Spawn(argv, stdout_file, stderr_file, nullptr);
}

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::filesystem::path& stdout_file,
                         const std::filesystem::path& stderr_file, const ProcessLimits& limits) {
  return Spawn(argv, stdout_file, stderr_file, &limits);
}

std::vector<ProcessInfo> ListProcesses() {
  static const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const double page_mb = static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
  std::vector<ProcessInfo> processes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size()) continue;
    std::istringstream fields(line.substr(close + 2));
    ProcessInfo p;
    p.pid = std::atoi(name.c_str());
    std::string skip;
    double utime = 0, stime = 0, cutime = 0, cstime = 0, rss = 0;
    fields >> p.state >> p.parent >> p.group >> p.session;
    for (int field = 7; field < 14; ++field) fields >> skip;
    fields >> utime >> stime >> cutime >> cstime;
    for (int field = 18; field < 22; ++field) fields >> skip;
    fields >> p.start_ticks >> skip >> rss;
    if (!fields) continue;
    p.cpu_seconds = (utime + stime + cutime + cstime) / tick;
    p.children_cpu_seconds = (cutime + cstime) / tick;
    p.rss_mb = rss * page_mb;
    processes.push_back(p);
  }
  return processes;
}

namespace {

std::vector<int> Live(const std::function<bool(const ProcessInfo&)>& which) {
  std::vector<int> pids;
  for (const ProcessInfo& p : ListProcesses()) {
    if (p.state != 'Z' && which(p)) pids.push_back(p.pid);
  }
  return pids;
}

bool WaitUntilNone(const std::function<bool(const ProcessInfo&)>& which, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!Live(which).empty()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    usleep(20000);
  }
  return true;
}

}  // namespace

size_t StopProcesses(const std::function<bool(const ProcessInfo&)>& which, double grace_seconds) {
  const std::vector<int> running = Live(which);
  if (running.empty()) return 0;
  for (int pid : running) kill(pid, SIGTERM);
  if (WaitUntilNone(which, grace_seconds)) return running.size();
  for (int round = 0; round < 50; ++round) {
    const std::vector<int> left = Live(which);
    if (left.empty()) return running.size();
    for (int pid : left) kill(pid, SIGKILL);
    usleep(20000);
  }
  throw std::runtime_error(std::to_string(Live(which).size()) +
                           " processes still running after SIGKILL");
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& arg : argv) {
    if (!line.empty()) line += ' ';
    if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

std::string FileTail(const std::filesystem::path& file, size_t max_bytes) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<size_t>(in.tellg());
  const size_t begin = size > max_bytes ? size - max_bytes : 0;
  std::string tail(size - begin, '\0');
  in.seekg(static_cast<std::streamoff>(begin));
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<size_t>(in.gcount()));
  return tail;
}

}  // namespace sparsebench
