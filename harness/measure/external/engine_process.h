#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/proc/process_tree.h"

namespace sparsebench {

// What the engine and every process it started have used: CPU seconds, those that ended
// included, and the largest memory seen (proportional set sizes summed over them); and the
// largest memory of the whole cell, this process and the engine's tree measured together.
struct EngineUsage {
  double cpu_seconds = 0;
  double peak_memory_mb = 0;
  double cell_peak_memory_mb = 0;
};

// An external engine's process: argv[0] run by sparsebench-engine-keeper (engine_keeper.cc),
// in a process group of its own, with one socket as its stdin and stdout (JSON lines both
// ways) and this process's stderr. The keeper is a subreaper: every process the engine starts,
// in whatever session, stays in its tree, which Sample meters and Stop ends. Every failure of
// the engine is an EngineFault naming `name`.
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

  // Samples the CPU time and (with `memory`) the memory of the engine's whole tree, and of
  // the cell's (this process's with it), now.
  EngineUsage Sample(bool memory = true);
  // Ends the engine: its stdin closes, it has `grace_seconds` to exit, then every process left
  // in its tree gets SIGTERM, then SIGKILL. Returns how many processes were left (the engine
  // itself among them when it did not exit in time).
  size_t Stop(double grace_seconds);
  const std::string& name() const { return name_; }

 private:
  void ReadStatus(double wait_seconds, bool until_exit);
  std::string ExitDescription();
  int keeper_ = -1;  // sparsebench-engine-keeper, the root of the engine's tree
  int engine_ = -1;
  int socket_ = -1;
  int status_ = -1;  // the keeper's status lines
  bool exited_ = false;
  int wait_status_ = 0;
  int exec_error_ = 0;
  int subreaper_error_ = 0;
  std::string name_;
  std::string buffer_, status_buffer_;
  std::unique_ptr<TreeMeter> meter_;       // the engine's tree: CPU
  std::unique_ptr<TreeMeter> cell_meter_;  // this process and its tree: memory
  EngineUsage usage_;
};

// The keeper program: $SPARSEBENCH_ENGINE_KEEPER, else sparsebench-engine-keeper beside this
// process's executable, else where the build put it.
std::string EngineKeeperPath();

}  // namespace sparsebench
