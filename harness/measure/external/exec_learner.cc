#include "harness/measure/external/exec_learner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include "engine/api/engine_error.h"
#include "engine/api/parse_number.h"
#include "harness/measure/external/off_clock.h"
#include "harness/measure/external/protocol.h"
#include "harness/measure/external/rows_file.h"
#include "harness/proc/subprocess.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

constexpr double kQuitSeconds = 5;
constexpr const char* kThreadVariables[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                            "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                                            "NUMEXPR_NUM_THREADS"};

fs::path EnginesDir() {
  const char* dir = std::getenv("SPARSEBENCH_ENGINES_DIR");
  return dir != nullptr && *dir != '\0' ? fs::path(dir)
                                        : fs::path(SPARSEBENCH_SOURCE_DIR) / "tools" / "engines";
}

// A path (it has a '/') as it is; a name, as an adapter of tools/engines/ (NAME or NAME.py).
std::string Resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) return FindExecutable(program);
  for (const std::string& candidate : {program, program + ".py"}) {
    const std::string found = FindExecutable((EnginesDir() / candidate).string());
    if (!found.empty()) return found;
  }
  return "";
}

size_t ContentHash(const Dataset& d) {
  auto bytes = [](const auto& v) {
    return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };
  const std::hash<std::string_view> h;
  size_t seed = d.rows();
  for (const std::string_view part : {bytes(d.row_offsets), bytes(d.feature_ids), bytes(d.values),
                                      bytes(d.text.offsets), std::string_view(d.text.chars)}) {
    seed ^= h(part) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  }
  return seed;
}

}  // namespace

ExecSpec ExecSpec::Parse(const std::string& text) {
  if (!text.starts_with("exec:"))
    throw ConfigError(fmt::format("engine spec '{}' is not exec:PROGRAM", text));
  std::string_view rest = std::string_view(text).substr(5);
  ExecSpec spec;
  const size_t comma = rest.find(',');
  spec.program = std::string(rest.substr(0, comma));
  if (spec.program.empty() || spec.program.find('=') != std::string::npos) {
    throw ConfigError(
        fmt::format("engine spec '{}' names no program: exec:PROGRAM[,key=value...]", text));
  }
  rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  while (!rest.empty()) {
    const size_t next = rest.find(',');
    const std::string_view item = rest.substr(0, next);
    rest = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      throw ConfigError(fmt::format("engine spec item '{}' is not key=value", item));
    }
    const std::string key(item.substr(0, eq)), value(item.substr(eq + 1));
    if (key == "hello_seconds" || key == "reply_seconds") {
      (key == "hello_seconds" ? spec.hello_seconds : spec.reply_seconds) =
          ParseNumber<double>(value, key, {0, 86400, true});
    }
    if (key == "input") {
      if (value != "ids" && value != "text")
        throw ConfigError(
            fmt::format("engine spec '{}': input={} is not ids or text", text, value));
      spec.reads_text = value == "text";
    }
    if (!spec.options.emplace(key, value).second)
      throw ConfigError("engine spec repeats key '" + key + "'");
  }
  spec.path = Resolve(spec.program);
  if (spec.path.empty()) {
    throw ConfigError(fmt::format("engine spec '{}': no executable {} (a path, or a name in {})",
                                  text, spec.program, EnginesDir().string()));
  }
  return spec;
}

std::string ExecSpec::Canonical() const {
  std::string text = "exec:" + program;
  for (const auto& [key, value] : options) text += "," + key + "=" + value;
  return text;
}

ExecLearner::ExecLearner(const std::string& spec, const DataShape& shape,
                         const TrainOptions& options)
    : spec_(ExecSpec::Parse(spec)), shape_(shape), options_(options) {
  for (const char* name : kThreadVariables)
    env_.push_back(fmt::format("{}={}", name, options.threads));
  env_.push_back("PYTHONUNBUFFERED=1");
  settings_ = {options.batch, options.lr, options.epochs, ""};
}

ExecLearner::~ExecLearner() = default;

nlohmann::json ExecLearner::Expect(const std::string& op, double deadline, size_t max_line) const {
  nlohmann::json message = process_->Receive(deadline, op, max_line);
  if (message["op"] != op) {
    throw EngineFault(CellStatus::kProtocolError,
                      fmt::format("engine {} sent {} where the protocol expects {}", spec(),
                                  message["op"].get<std::string>(), op));
  }
  return message;
}

void ExecLearner::Stage(const Dataset& train) {
  dir_ = std::make_unique<TempDir>(fs::temp_directory_path(), "sparsebench-exec-");
  process_ = std::make_unique<EngineProcess>(std::vector<std::string>{spec_.path}, env_, spec());
  process_->Send({{"op", "hello"}, {"protocol", 1}, {"versions", {1, kProtocolVersion}}});
  const nlohmann::json hello = Expect("hello", spec_.hello_seconds);
  protocol_ = Field<int64_t>(hello, "protocol", -1, spec());
  if (protocol_ != 1 && protocol_ != kProtocolVersion) {
    throw EngineFault(
        CellStatus::kProtocolError,
        fmt::format("engine {} speaks protocol version {}; this harness speaks 1 and {}", spec(),
                    protocol_, kProtocolVersion));
  }
  hello_ = fmt::format("{} {}", Field<std::string>(hello, "engine", "?", spec()),
                       Field<std::string>(hello, "version", "?", spec()));
  Enter(Phase::kLoad);
  // Version 1 hands the labels over at load, off the clock; version 2 in `train`, on it.
  const std::string train_file = (dir_->path() / "train.jsonl").string();
  WriteRowsFile(train, protocol_ == 1, train_file);
  if (protocol_ != 1) labels_text_ = LabelsFileText(train);
  cpu_.reference_read = ReferenceReadCpuSeconds(train_file);
  nlohmann::json settings = {
      {"threads", options_.threads},
      {"seed", options_.seed},
      {"batch", options_.batch},
      {"lr", options_.lr},
      {"epochs", options_.epochs},
      {"lr_half_life", options_.lr_half_life ? nlohmann::json(*options_.lr_half_life) : nullptr}};
  process_->Send({{"op", "load"},
                  {"train", train_file},
                  {"features", shape_.features},
                  {"labels", shape_.labels},
                  {"text", train.has_text()},
                  {"settings", settings},
                  {"options", spec_.options}});
  const nlohmann::json loaded = Expect("loaded", spec_.reply_seconds);
  const auto epochs = Field<int64_t>(loaded, "epochs", 0, spec());
  if (epochs < 1 || epochs > 100000) {
    throw EngineFault(
        CellStatus::kProtocolError,
        fmt::format("engine {} will train {} epochs; loaded must say 1 or more", spec(), epochs));
  }
  settings_ = {Field<uint32_t>(loaded, "batch", 0, spec()),
               Field<double>(loaded, "lr", 0.0, spec()), static_cast<uint32_t>(epochs),
               Field<std::string>(loaded, "optimizer", "", spec()),
               Field<std::string>(loaded, "precision", "not stated by the engine", spec())};
  pauses_within_epoch_ = Field<std::string>(loaded, "pauses", "any", spec()) != "epoch";
}

void ExecLearner::Enter(Phase next) {
  const double now = process_->Sample(false).cpu_seconds;  // on the clock at pauses: CPU only
  double* counter[] = {&cpu_.startup, &cpu_.load, &cpu_.train, &cpu_.pause, &cpu_.after};
  *counter[static_cast<int>(phase_)] += now - cpu_mark_;
  cpu_mark_ = now;
  phase_ = next;
}

void ExecLearner::Train(const Dataset& train, const PausePlan& plan) {
  if (!process_) throw std::logic_error("ExecLearner::Train before Stage");
  Enter(Phase::kTrain);
  const std::vector<uint64_t> positions =
      pauses_within_epoch_ ? PausePositions(train.rows(), settings_.batch, plan.per_epoch)
                           : std::vector<uint64_t>{};
  nlohmann::json message = {{"op", "train"}, {"pause_after", positions}};
  if (protocol_ != 1) {
    const std::string labels_file = (dir_->path() / "labels.jsonl").string();
    std::ofstream file(labels_file, std::ios::binary);
    file << labels_text_;
    if (!file.flush()) throw std::runtime_error("cannot write " + labels_file);
    message["labels"] = labels_file;
  }
  process_->Send(message);
  bool stopped = false;
  for (uint64_t epoch = 0; epoch < settings_.epochs && !stopped; ++epoch)
    stopped = !TrainEpoch(epoch, train.rows(), positions, plan);
  const nlohmann::json done = Expect("done", stopped ? spec_.reply_seconds : 0);
  Enter(Phase::kAfter);
  model_bytes_ = Field<size_t>(done, "model_bytes", 0, spec());
}

bool ExecLearner::TrainEpoch(uint64_t epoch, uint64_t rows, const std::vector<uint64_t>& positions,
                             const PausePlan& plan) {
  for (size_t i = 0; i <= positions.size(); ++i) {
    const uint64_t at = i < positions.size() ? positions[i] : rows;
    const nlohmann::json pause = Expect("pause", 0);
    Enter(Phase::kPause);
    const auto paused_epoch = Field<int64_t>(pause, "epoch", -1, spec());
    const auto paused_rows = Field<int64_t>(pause, "rows", -1, spec());
    if (paused_epoch != static_cast<int64_t>(epoch) || paused_rows != static_cast<int64_t>(at)) {
      throw EngineFault(
          CellStatus::kProtocolError,
          fmt::format(
              "engine {} paused at epoch {} rows {}; the plan's next pause is epoch {} rows {}",
              spec(), paused_epoch, paused_rows, epoch, at));
    }
    Progress progress;
    progress.epoch = static_cast<double>(epoch) +
                     (rows == 0 ? 1.0 : static_cast<double>(at) / static_cast<double>(rows));
    progress.samples = at;
    progress.epoch_end = at == rows;
    progress.mean_loss = Field<double>(pause, "loss", NAN, spec());
    const bool go_on = plan(progress);
    Enter(Phase::kTrain);
    process_->Send({{"op", go_on ? "resume" : "stop"}});
    if (!go_on) return false;
  }
  return true;
}

std::string ExecLearner::RowsFile(const Dataset& data) const {
  const size_t hash = ContentHash(data);
  auto it = rows_files_.find(hash);
  if (it != rows_files_.end()) return it->second;
  const std::string path =
      (dir_->path() / fmt::format("predict-{}.jsonl", rows_files_.size())).string();
  WriteRowsFile(data, false, path);
  return rows_files_.emplace(hash, path).first->second;
}

TopK ExecLearner::Predict(const Dataset& data, uint32_t k) const {
  if (!process_) throw std::logic_error("ExecLearner::Predict before Stage");
  const std::string file = RowsFile(data);
  const double before = phase_ == Phase::kAfter ? process_->Sample(false).cpu_seconds : 0;
  process_->Send({{"op", "predict"}, {"file", file}, {"k", k}});
  const nlohmann::json reply =
      Expect("predictions", spec_.reply_seconds, data.rows() * k * 12 + (1 << 20));
  if (phase_ == Phase::kPause) cpu_.pause_rows += data.rows(), ++cpu_.pause_requests;
  if (phase_ == Phase::kAfter) {
    cpu_.after_rows += data.rows();
    cpu_.after_predict += process_->Sample(false).cpu_seconds - before;
  }
  return ParsePredictions(reply, data.rows(), k, shape_.labels, spec());
}

TopK ExecLearner::PredictOne(const Dataset& data, size_t row, uint32_t k) const {
  if (!process_) throw std::logic_error("ExecLearner::PredictOne before Stage");
  // Written as text: the row's numbers exactly as the data files print them.
  process_->Send(
      fmt::format(R"({{"op":"predict","rows":[{}],"k":{}}})", RowWithoutLabels(data, row), k),
      "predict");
  return ParsePredictions(Expect("predictions", spec_.reply_seconds), 1, k, shape_.labels, spec());
}

void ExecLearner::Save(const std::string& path) const {
  if (!process_) throw std::logic_error("ExecLearner::Save before Stage");
  process_->Send({{"op", "save"}, {"path", path}});
  Expect("saved", spec_.reply_seconds);
}

void ExecLearner::Finish() {
  if (!process_) return;
  process_->Send({{"op", "quit"}});
  const size_t left = process_->Stop(kQuitSeconds);
  Enter(Phase::kAfter);
  if (left > 0) {
    throw EngineFault(
        CellStatus::kProtocolError,
        fmt::format(
            "engine {} left {} process(es) running after quit (stopped: SIGTERM, then SIGKILL)",
            spec(), left));
  }
}

std::map<std::string, std::string> ExecLearner::context() const {
  std::string env;
  for (const std::string& e : env_) env += (env.empty() ? "" : " ") + e;
  const EngineUsage usage = process_ ? process_->Sample() : EngineUsage{};
  auto cpu = [](double seconds) { return fmt::format("{:.3f}", seconds); };
  PhaseCpu phases = cpu_;
  phases.model_gb =
      std::min(static_cast<double>(model_bytes_), usage.peak_memory_mb * 1048576.0) / 1e9;
  std::string off_clock;
  for (const std::string& found : OffClockWork(phases))
    off_clock += (off_clock.empty() ? "" : "; ") + found;
  std::map<std::string, std::string> facts = {
      {"engine_program", spec_.path},
      {"engine_hello", hello_},
      {"engine_env", env},
      {"engine_protocol", protocol_ == 1 ? "1: labels given at load" : std::to_string(protocol_)},
      {"engine_cpu_startup_seconds", cpu(cpu_.startup)},
      {"engine_cpu_load_seconds", cpu(cpu_.load)},
      {"engine_cpu_train_seconds", cpu(cpu_.train)},
      {"engine_cpu_pause_seconds", cpu(cpu_.pause)},
      {"engine_cpu_after_seconds", cpu(cpu_.after)},
      {"engine_cpu_after_predict_seconds", cpu(cpu_.after_predict)},
      {"engine_pause_rows", std::to_string(cpu_.pause_rows)},
      {"engine_after_rows", std::to_string(cpu_.after_rows)},
      {"engine_cpu_reference_read_seconds", cpu(cpu_.reference_read)},
      {"engine_off_clock", off_clock},
      {"engine_peak_memory_mb", fmt::format("{:.1f}", usage.peak_memory_mb)},
      {"cell_peak_memory_mb", fmt::format("{:.1f}", usage.cell_peak_memory_mb)}};
  if (dir_) AddStagedFacts(*dir_, facts);
  return facts;
}

}  // namespace sparsebench
