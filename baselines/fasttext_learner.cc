#include "baselines/fasttext_learner.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "datasets/data_error.h"
#include "engine/engine_error.h"
#include "engine/spec.h"

namespace sparsebench {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kDefaultDim = 10, kDefaultNgrams = 2, kDefaultBucket = 10'000'000;
constexpr int64_t kDefaultEpoch = 5;
constexpr double kDefaultLr = 0.1;
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr double kHeldOutFraction = 0.1;
constexpr size_t kStderrTail = 2000;

// Every key's minimum is >= 0, so -1 can only be the fallback of an absent key.
std::optional<int64_t> OptionalInt(Spec& spec, const std::string& key, int64_t min, int64_t max) {
  const int64_t value = spec.Int(key, -1, min, max);
  return value < 0 ? std::nullopt : std::optional(value);
}

std::string Choice(Spec& spec, const std::string& key, const std::vector<std::string>& allowed) {
  std::string value = spec.String(key, allowed.front());
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
  throw ConfigError("engine spec: " + key + "=" + value + " is not one of " +
                    fmt::format("{}", fmt::join(allowed, ", ")));
}

template <typename T>
std::optional<std::string> SettingText(std::optional<T> value, T fallback, bool only_given) {
  if (only_given && !value) return std::nullopt;
  return fmt::format("{}", value.value_or(fallback));
}

void Append(std::vector<std::string>& args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
}

FastTextRows TrainingRows(const Dataset& train, bool repeat_values) {
  return {.labels = true, .text = train.has_text(), .repeat_values = repeat_values};
}

void CheckHasInput(const Dataset& data) {
  if (data.has_text() || data.has_features() || data.rows() == 0) return;
  throw DataError(data.name, 0, "rows have neither text nor features for fastText");
}

std::vector<uint32_t> LabelledRows(const Dataset& data) {
  std::vector<uint32_t> rows;
  for (size_t r = 0; r < data.rows(); ++r) {
    if (!data.labels(r).empty()) rows.push_back(static_cast<uint32_t>(r));
  }
  return rows;
}

bool AnyMultiLabel(const Dataset& data) {
  for (size_t r = 0; r < data.rows(); ++r) {
    if (data.labels(r).size() > 1) return true;
  }
  return false;
}

std::vector<uint32_t> Pick(const std::vector<uint32_t>& rows, const std::vector<uint32_t>& at) {
  std::vector<uint32_t> picked;
  for (uint32_t i : at) picked.push_back(rows[i]);
  return picked;
}

int64_t EpochsIn(const std::vector<std::string>& args) {
  const auto flag = std::find(args.begin(), args.end(), "-epoch");
  return flag == args.end() || flag + 1 == args.end() ? kDefaultEpoch : std::stoll(*(flag + 1));
}

}  // namespace

FastTextLearner::Config FastTextLearner::ParseConfig(const std::string& text) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != "fasttext") throw ConfigError("'" + text + "' is not a fasttext spec");
  Config c;
  c.dim = OptionalInt(spec, "dim", 1, 100'000);
  c.ngrams = OptionalInt(spec, "ngrams", 1, 100);
  c.mincount = spec.Int("mincount", 1, 1, kIntMax);
  c.bucket = OptionalInt(spec, "bucket", 0, kIntMax);
  c.epoch = OptionalInt(spec, "epoch", 1, 1'000'000);
  const double lr = spec.Double("lr", -1, 1e-9, 1000);
  if (lr > 0) c.lr = lr;
  c.loss = Choice(spec, "loss", {"auto", "softmax", "ova", "hs"});
  c.repeat_values = Choice(spec, "values", {"drop", "repeat"}) == "repeat";
  c.autotune_seconds = spec.Int("autotune", 0, 0, kIntMax);
  c.threads = spec.Int("threads", 0, 0, 1024);
  c.bin = spec.String("bin", "fasttext");
  spec.Finish();
  return c;
}

FastTextLearner::FastTextLearner(const std::string& spec, const DataShape& shape,
                                 const TrainOptions& options)
    : config_(ParseConfig(spec)),
      options_(options),
      num_labels_(shape.labels),
      binary_(FindExecutable(config_.bin)),
      dir_(fs::temp_directory_path(), "sparsebench-fasttext-") {}

FastTextLearner::~FastTextLearner() = default;

std::vector<FastTextLearner::Setting> FastTextLearner::TunableSettings() const {
  const bool only_given = config_.autotune_seconds > 0;
  return {{"dim", "-dim", SettingText(config_.dim, kDefaultDim, only_given)},
          {"ngrams", "-wordNgrams", SettingText(config_.ngrams, kDefaultNgrams, only_given)},
          {"bucket", "-bucket", SettingText(config_.bucket, kDefaultBucket, only_given)},
          {"epoch", "-epoch", SettingText(config_.epoch, kDefaultEpoch, only_given)},
          {"lr", "-lr", SettingText(config_.lr, kDefaultLr, only_given)}};
}

std::string FastTextLearner::spec() const {
  std::vector<std::string> items;
  for (const Setting& s : TunableSettings()) {
    if (s.value) items.push_back(s.key + "=" + *s.value);
  }
  items.push_back(fmt::format("mincount={}", config_.mincount));
  items.push_back("loss=" + (loss_.empty() ? config_.loss : loss_));
  if (!text_rows_.value_or(false)) {
    items.push_back(std::string("values=") + (config_.repeat_values ? "repeat" : "drop"));
  }
  items.push_back(fmt::format("autotune={}", config_.autotune_seconds));
  if (config_.threads > 0) items.push_back(fmt::format("threads={}", config_.threads));
  if (config_.bin != "fasttext") items.push_back("bin=" + config_.bin);
  return fmt::format("fasttext:{}", fmt::join(items, ","));
}

// With autotune on, only the settings the spec gives: fastText tunes the rest.
std::vector<std::string> FastTextLearner::ModelArgs() const {
  std::vector<std::string> args = {"-minCount", std::to_string(config_.mincount), "-loss", loss_};
  for (const Setting& s : TunableSettings()) {
    if (s.value) Append(args, {s.flag, *s.value});
  }
  return args;
}

std::vector<std::string> FastTextLearner::ProcessArgs() const {
  const int64_t threads = config_.threads > 0 ? config_.threads : std::max(1, options_.threads);
  return {"-thread", std::to_string(threads), "-seed",
          std::to_string(options_.seed % (uint64_t{1} << 31))};
}

ProcessResult FastTextLearner::Run(std::vector<std::string> args, const fs::path& dir,
                                   const std::string& stdout_name) const {
  if (binary_.empty()) {
    throw std::runtime_error(fmt::format(
        "fastText binary '{}' not found{}; install Debian's `fasttext` package (apt-get install "
        "fasttext) or name the binary with bin=PATH in the engine spec",
        config_.bin, config_.bin.find('/') == std::string::npos ? " in PATH" : ""));
  }
  args.insert(args.begin(), binary_);
  const fs::path stderr_file = dir / (stdout_name + ".stderr");
  const ProcessResult result = RunProcess(args, dir / stdout_name, stderr_file);
  if (!result.ok()) {
    throw std::runtime_error(fmt::format("fastText failed ({}): {}\n{}", result.Describe(),
                                         CommandLine(args), FileTail(stderr_file, kStderrTail)));
  }
  return result;
}

TrainSettings FastTextLearner::settings() const {
  const int64_t epochs = train_args_.empty() ? config_.epoch.value_or(kDefaultEpoch) : EpochsIn(train_args_);
  return {0, config_.lr.value_or(kDefaultLr), static_cast<uint32_t>(epochs),
          "fastText SGD (HOGWILD), lr decaying linearly to 0"};
}

void FastTextLearner::Train(const Dataset& train, const PausePlan& plan) {
  CheckHasInput(train);
  const std::vector<uint32_t> rows = LabelledRows(train);
  if (rows.empty()) throw DataError(train.name, 0, "no row has a label to train fastText on");
  text_rows_.reset();
  std::error_code ignored;
  fs::remove(model_file(), ignored);
  loss_ = config_.loss != "auto" ? config_.loss : AnyMultiLabel(train) ? "ova" : "softmax";
  num_labels_ = std::max(num_labels_, train.num_labels);
  WriteFastTextRows(train, rows, TrainingRows(train, config_.repeat_values),
                    dir_.path() / "train.txt");
  const std::vector<std::string> model_args =
      config_.autotune_seconds > 0 ? Autotune(train, rows) : ModelArgs();
  train_args_ = {"supervised", "-input", dir_.path() / "train.txt", "-output",
                 dir_.path() / "model"};
  Append(train_args_, model_args);
  Append(train_args_, ProcessArgs());
  Append(train_args_, {"-verbose", "0"});
  Run(train_args_, dir_.path(), "train.out");
  if (!fs::exists(model_file())) {
    throw std::runtime_error(fmt::format("{} {} exited with status 0 but wrote no {}", binary_,
                                         CommandLine(train_args_), model_file().string()));
  }
  text_rows_ = train.has_text();
  Progress end;
  end.epoch = static_cast<double>(EpochsIn(model_args));
  end.samples = rows.size() * static_cast<uint64_t>(EpochsIn(model_args));
  end.epoch_end = true;
  plan(end);
}

std::vector<std::string> FastTextLearner::Autotune(const Dataset& train,
                                                   const std::vector<uint32_t>& rows) {
  if (rows.size() < 2) throw DataError(train.name, 0, "autotune needs 2 or more labelled rows");
  const double fraction = std::max(kHeldOutFraction, 1.0 / static_cast<double>(rows.size()));
  const RowSplit split = HeldOutSplit(rows.size(), fraction, options_.seed);
  const fs::path& dir = dir_.path();
  const fs::path part = dir / "tune_train.txt", valid = dir / "tune_valid.txt";
  const FastTextRows format = TrainingRows(train, config_.repeat_values);
  WriteFastTextRows(train, Pick(rows, split.train), format, part);
  WriteFastTextRows(train, Pick(rows, split.held_out), format, valid);
  std::vector<std::string> args = {"supervised",
                                   "-input",
                                   part,
                                   "-output",
                                   dir / "tuned",
                                   "-autotune-validation",
                                   valid,
                                   "-autotune-duration",
                                   std::to_string(config_.autotune_seconds)};
  Append(args, ModelArgs());
  Append(args, ProcessArgs());
  Append(args, {"-verbose", "3"});  // the level at which autotune prints the chosen lr
  Run(args, dir, "autotune.out");
  Run({"dump", dir / "tuned.bin", "args"}, dir, "tuned_args.out");
  tuned_args_ = ReadTunedArgs(dir / "tuned_args.out", dir / "autotune.out");
  return tuned_args_;
}

TopK FastTextLearner::Predict(const Dataset& data, uint32_t k) const {
  if (!text_rows_) {
    throw std::logic_error("FastTextLearner::Predict before a successful TrainEpoch");
  }
  if (k == 0) throw std::invalid_argument("Predict needs k >= 1");
  if (data.rows() == 0) return TopK{k, {}, {}};
  if (*text_rows_ ? !data.has_text() : !data.has_features()) {
    throw DataError(data.name, 0,
                    std::string("the fastText model was trained on ") +
                        (*text_rows_ ? "text" : "features") + ", which these rows lack");
  }
  const TempDir call(dir_.path(), "predict-");
  std::vector<uint32_t> rows(data.rows());
  std::iota(rows.begin(), rows.end(), 0u);
  const FastTextRows format{
      .labels = false, .text = *text_rows_, .repeat_values = config_.repeat_values};
  WriteFastTextRows(data, rows, format, call.path() / "rows.txt");
  Run({"predict-prob", model_file(), call.path() / "rows.txt", std::to_string(k)}, call.path(),
      "predictions.txt");
  std::ifstream in(call.path() / "predictions.txt");
  return ParseFastTextPredictions(in, data.rows(), k, num_labels_);
}

TopK FastTextLearner::PredictOne(const Dataset& data, size_t row, uint32_t k) const {
  const uint32_t one = static_cast<uint32_t>(row);
  return Predict(TakeRows(data, std::span(&one, 1)), k);
}

void FastTextLearner::Save(const std::string& path) const {
  if (!text_rows_) throw std::logic_error("FastTextLearner::Save before a successful TrainEpoch");
  std::error_code error;
  fs::copy_file(model_file(), path, fs::copy_options::overwrite_existing, error);
  if (error) {
    throw std::runtime_error("cannot save the fastText model to " + path + ": " + error.message());
  }
}

size_t FastTextLearner::model_bytes() const {
  std::error_code error;
  const uintmax_t bytes = fs::file_size(model_file(), error);
  return error ? 0 : static_cast<size_t>(bytes);
}

std::map<std::string, std::string> FastTextLearner::context() const {
  std::map<std::string, std::string> facts;
  facts["fasttext_binary"] = binary_.empty() ? "not found: " + config_.bin : binary_;
  if (!train_args_.empty()) facts["fasttext_args"] = CommandLine(train_args_);
  if (!tuned_args_.empty()) facts["fasttext_tuned_args"] = CommandLine(tuned_args_);
  return facts;
}

}  // namespace sparsebench
