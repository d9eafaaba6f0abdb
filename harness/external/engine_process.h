#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sparsebench {

// What the engine's process group has used: CPU seconds of its live processes (and of the
// children they waited for) and the largest resident size seen.
struct GroupUsage {
  double cpu_seconds = 0;
  double peak_rss_mb = 0;
};

// An external engine's process: argv[0] run in a process group of its own with one socket as
// its stdin and stdout (JSON lines both ways) and this process's stderr. Every failure of the
// engine is an EngineFault naming `name`.
class EngineProcess {
 public:
  EngineProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                std::string name);
  ~EngineProcess();  // Stop(), without throwing
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  void Send(const nlohmann::json& message);
  // A message already in JSON text (one line), whose op is `op`.
  void Send(std::string_view message, std::string_view op);
  // The next message, an object with a string "op". Waits at most `deadline_seconds` (0: no
  // deadline; the matrix's cell limit still holds). A message with op "error" is a fault
  // carrying the engine's own words. `awaiting` names what is waited for, for messages.
  nlohmann::json Receive(double deadline_seconds, std::string_view awaiting, size_t max_line_bytes);

  // Samples the group's CPU time and memory now.
  GroupUsage Sample();
  // Ends the engine: its stdin closes, it has `grace_seconds` to exit, then its whole process
  // group gets SIGTERM, then SIGKILL. Returns how many processes outlived the engine's own.
  size_t Stop(double grace_seconds);
  const std::string& name() const { return name_; }
  int pid() const { return pid_; }

 private:
  std::string ExitDescription();
  int pid_ = -1;
  int socket_ = -1;
  bool exited_ = false;
  int wait_status_ = 0;
  std::string name_;
  std::string buffer_;
  GroupUsage usage_;
};

}  // namespace sparsebench
