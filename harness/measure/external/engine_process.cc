#include "harness/measure/external/engine_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "harness/measure/external/protocol.h"
#include "harness/proc/subprocess.h"

#ifndef SPARSEBENCH_ENGINE_KEEPER
#define SPARSEBENCH_ENGINE_KEEPER "sparsebench-engine-keeper"
#endif

extern char** environ;

namespace sparsebench {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
constexpr const char* kKeeperName = "sparsebench-engine-keeper";

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> Environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto overridden = [&](const std::string& x) {
      return entry.starts_with(x.substr(0, x.find('=') + 1));
    };
    if (std::none_of(extra.begin(), extra.end(), overridden)) env.emplace_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::string Quote(std::string_view line) {
  std::string shown(line.substr(0, 200));
  if (line.size() > 200) shown += "...";
  return nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string EngineKeeperPath() {
  const char* given = std::getenv("SPARSEBENCH_ENGINE_KEEPER");
  if (given != nullptr && *given != '\0') return given;
  std::error_code error;
  const fs::path beside = fs::read_symlink("/proc/self/exe", error).parent_path() / kKeeperName;
  if (!error && access(beside.c_str(), X_OK) == 0) return beside.string();
  return SPARSEBENCH_ENGINE_KEEPER;
}

EngineProcess::EngineProcess(const std::vector<std::string>& argv,
                             const std::vector<std::string>& extra_env, std::string name)
    : name_(std::move(name)) {
  int fds[2], status[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0 || pipe2(status, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("socketpair or pipe: {}", std::strerror(errno)));
  const std::string keeper = EngineKeeperPath();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, status[1], 3);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> keeper_argv{keeper, "3"};
  keeper_argv.insert(keeper_argv.end(), argv.begin(), argv.end());
  std::vector<char*> args, env;
  for (const std::string& a : keeper_argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> environment = Environment(extra_env);
  for (const std::string& e : environment) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  const int error = posix_spawn(&keeper_, args[0], &actions, &attributes, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(fds[1]);
  close(status[1]);
  socket_ = fds[0];
  status_ = status[0];
  if (error != 0) {
    keeper_ = -1;
    throw std::runtime_error(
        fmt::format("cannot run the engine keeper {}: {}", keeper, std::strerror(error)));
  }
  meter_ = std::make_unique<TreeMeter>(keeper_, false);
  cell_meter_ = std::make_unique<TreeMeter>(getpid(), true);
  ReadStatus(10, false);
  if (subreaper_error_ != 0) {
    throw std::runtime_error(fmt::format(
        "the engine keeper {} cannot be a child subreaper here ({}), so processes the engine "
        "starts could escape the referee; run a native keeper (SPARSEBENCH_ENGINE_KEEPER)",
        keeper, std::strerror(subreaper_error_)));
  }
  if (exec_error_ != 0 || engine_ < 0) {
    throw EngineFault(CellStatus::kError,
                      fmt::format("cannot run engine {} ({}): {}", name_, CommandLine(argv),
                                  std::strerror(exec_error_ ? exec_error_ : ECHILD)));
  }
}

EngineProcess::~EngineProcess() {
  try {
    Stop(0.5);
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing more can be done here
  }
  if (socket_ >= 0) close(socket_);
  if (status_ >= 0) close(status_);
}

// Reads the keeper's status lines for up to `wait_seconds`, until the engine's pid is known
// (or, with `until_exit`, how it ended) or it could not be started.
void EngineProcess::ReadStatus(double wait_seconds, bool until_exit) {
  const auto start = Clock::now();
  while (true) {
    for (size_t end; (end = status_buffer_.find('\n')) != std::string::npos;) {
      const std::string line = status_buffer_.substr(0, end);
      status_buffer_.erase(0, end + 1);
      const int value = std::atoi(line.c_str() + line.find(' ') + 1);
      if (line.starts_with("engine ")) engine_ = value;
      if (line.starts_with("exec ")) exec_error_ = value;
      if (line.starts_with("subreaper ")) subreaper_error_ = value;
      if (line.starts_with("exit ")) exited_ = true, wait_status_ = value;
    }
    if (exec_error_ != 0 || subreaper_error_ != 0 || (until_exit ? exited_ : engine_ > 0)) return;
    if (SecondsSince(start) >= wait_seconds) return;
    pollfd p{status_, POLLIN, 0};
    if (poll(&p, 1, 10) <= 0) continue;
    char chunk[256];
    const ssize_t n = read(status_, chunk, sizeof chunk);
    if (n > 0) {
      status_buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n == 0) {
      usleep(10000);  // the keeper has gone: nothing more will come
    }
  }
}

std::string EngineProcess::ExitDescription() {
  ReadStatus(2, true);
  if (exec_error_ != 0) return fmt::format("could not be started ({})", std::strerror(exec_error_));
  if (!exited_) return "closed its output";
  if (WIFSIGNALED(wait_status_))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(wait_status_),
                       strsignal(WTERMSIG(wait_status_)));
  return fmt::format("exited with status {}", WEXITSTATUS(wait_status_));
}

void EngineProcess::Send(const nlohmann::json& message) {
  Send(message.dump(), message.value("op", std::string("a message")));
}

void EngineProcess::Send(std::string_view message, std::string_view op) {
  const std::string line = std::string(message) + "\n";
  size_t sent = 0;
  const auto start = Clock::now();
  while (sent < line.size()) {
    pollfd p{socket_, POLLOUT, 0};
    if (poll(&p, 1, 200) == 0) {
      if (SecondsSince(start) > 60) {
        throw EngineFault(CellStatus::kTimeout,
                          fmt::format("engine {} read none of its input for 60 s", name_));
      }
      continue;
    }
    const ssize_t n =
        send(socket_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (errno != EAGAIN && errno != EINTR) {
      throw EngineFault(CellStatus::kCrash, fmt::format("engine {} {} before reading {}", name_,
                                                        ExitDescription(), op));
    }
  }
}

nlohmann::json EngineProcess::Receive(double deadline_seconds, std::string_view awaiting,
                                      size_t max_line_bytes) {
  const auto start = Clock::now();
  auto last_sample = start;
  while (true) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      const std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
      if (message.is_discarded() || !message.is_object() || !message.contains("op") ||
          !message["op"].is_string()) {
        throw EngineFault(CellStatus::kProtocolError,
                          fmt::format("engine {} wrote a line that is not a protocol message while "
                                      "the harness waited for {}: {}",
                                      name_, awaiting, Quote(line)));
      }
      if (message["op"] == "error") {
        throw EngineFault(CellStatus::kError,
                          fmt::format("engine {} reported an error: {}", name_,
                                      message.value("message", message.dump())));
      }
      return message;
    }
    if (buffer_.size() > max_line_bytes) {
      throw EngineFault(CellStatus::kProtocolError,
                        fmt::format("engine {} wrote more than {} bytes without "
                                    "a line end while the harness waited for {}",
                                    name_, max_line_bytes, awaiting));
    }
    const double waited = SecondsSince(start);
    if (deadline_seconds > 0 && waited > deadline_seconds) {
      throw EngineFault(CellStatus::kTimeout, fmt::format("engine {} sent no {} within {} s", name_,
                                                          awaiting, deadline_seconds));
    }
    if (SecondsSince(last_sample) > 0.2) Sample(), last_sample = Clock::now();
    pollfd p{socket_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char chunk[1 << 16];
    const ssize_t n = recv(socket_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      throw EngineFault(CellStatus::kCrash, fmt::format("engine {} {} before sending {}", name_,
                                                        ExitDescription(), awaiting));
    }
  }
}

EngineUsage EngineProcess::Sample(bool memory) {
  if (!meter_) return usage_;
  usage_.cpu_seconds = std::max(usage_.cpu_seconds, meter_->Sample(false).cpu_seconds);
  if (memory) {
    const TreeUsage cell = cell_meter_->Sample(true);
    usage_.peak_memory_mb = std::max(usage_.peak_memory_mb, cell.memory_mb - cell.root_memory_mb);
    usage_.cell_peak_memory_mb = std::max(usage_.cell_peak_memory_mb, cell.memory_mb);
  }
  return usage_;
}

size_t EngineProcess::Stop(double grace_seconds) {
  if (keeper_ <= 0) return 0;
  if (socket_ >= 0) shutdown(socket_, SHUT_WR);
  ReadStatus(grace_seconds, true);
  Sample();
  const size_t left = StopTree(keeper_, 1.0);
  Sample();
  kill(keeper_, SIGTERM);
  int status = 0;
  while (waitpid(keeper_, &status, 0) < 0 && errno == EINTR) {
  }
  keeper_ = -1;
  meter_.reset();
  cell_meter_.reset();
  return left;
}

}  // namespace sparsebench
