#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "baselines/temp_dir.h"
#include "engine/api/learner.h"
#include "harness/measure/external/engine_process.h"
#include "harness/measure/external/off_clock.h"

namespace sparsebench {

// An `exec:` spec: the program and the settings passed through to it.
struct ExecSpec {
  std::string program;  // as written: a path, or the name of an adapter in tools/engines/
  std::string path;     // the executable it resolves to
  std::map<std::string, std::string> options;  // passed to the engine as strings
  double hello_seconds = 60;                   // deadline of the handshake
  double reply_seconds = 600;  // deadline of every other reply (load, predictions, save)
  bool reads_text = false;     // input=text: rows carry the raw text only, no shared featurizer

  // "exec:PROGRAM[,key=value...]"; ConfigError when malformed or the program is not found.
  static ExecSpec Parse(const std::string& text);
  std::string Canonical() const;
};

// An engine outside SparseBench, run as a child process speaking the line protocol of
// tools/engines/README.md. The harness is its referee: it stages the data, owns the clock
// (Train runs from "train" to the engine's pauses and from each "resume"), asks for
// predictions and checks every reply; any misbehaviour is an EngineFault.
class ExecLearner : public Learner {
 public:
  ExecLearner(const std::string& spec, const DataShape& shape, const TrainOptions& options);
  ~ExecLearner() override;

  std::string spec() const override { return spec_.Canonical(); }
  TrainSettings settings() const override { return settings_; }
  void Stage(const Dataset& train) override;
  void Train(const Dataset& train, const PausePlan& plan) override;
  TopK Predict(const Dataset& data, uint32_t k) const override;
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override;
  void Save(const std::string& path) const override;
  size_t model_bytes() const override { return model_bytes_; }
  void Finish() override;
  std::map<std::string, std::string> context() const override;

 private:
  nlohmann::json Expect(const std::string& op, double deadline, size_t max_line = 1 << 20) const;
  // False when the plan stopped training (the engine was sent `stop`).
  bool TrainEpoch(uint64_t epoch, uint64_t rows, const std::vector<uint64_t>& positions,
                  const PausePlan& plan);
  std::string RowsFile(const Dataset& data) const;

  ExecSpec spec_;
  DataShape shape_;
  TrainOptions options_;
  std::vector<std::string> env_;
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<EngineProcess> process_;
  TrainSettings settings_;
  bool pauses_within_epoch_ = true;
  std::string hello_;
  size_t model_bytes_ = 0;
  int64_t protocol_ = 0;     // the version the engine speaks
  std::string labels_text_;  // version 2: the labels file, written when training starts
  // CPU by phase: Enter(next) adds what the engine's processes spent since the last call to the
  // phase that is ending.
  enum class Phase { kStartup, kLoad, kTrain, kPause, kAfter };
  void Enter(Phase next);
  Phase phase_ = Phase::kStartup;
  double cpu_mark_ = 0;
  mutable PhaseCpu cpu_;
  mutable std::map<size_t, std::string> rows_files_;  // by content hash
};

}  // namespace sparsebench
