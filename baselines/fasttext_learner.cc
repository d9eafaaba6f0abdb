#include "baselines/fasttext_learner.h"

#include <fasttext/fasttext.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "baselines/families.h"
#include "baselines/fasttext_autotune.h"
#include "baselines/fasttext_pauses.h"
#include "baselines/fasttext_staging.h"
#include "datasets/data_error.h"
#include "engine/api/engine_error.h"
#include "engine/api/spec.h"

namespace sparsebench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kDefaultDim = 10, kDefaultNgrams = 2, kDefaultBucket = 10'000'000;
constexpr int64_t kDefaultEpoch = 5;
constexpr double kDefaultLr = 0.1;
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
// autotune=auto: the search lasts this many times its first trial (fastText's defaults on the
// tuning rows), measured to let at least five trials finish at every size the matrices use.
constexpr double kAutoFirstTrials = 12;
constexpr int kAutoMinFinished = 5;  // the report names a tuned row with fewer (harness/report/)
constexpr double kAutoTrialCap = 4;  // first trials: a slower trial costs more than it can save

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

bool AnyMultiLabel(const Dataset& data) {
  for (size_t r = 0; r < data.rows(); ++r) {
    if (data.labels(r).size() > 1) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& argv) {
  return fmt::format("{}", fmt::join(argv, " "));
}

fasttext::Args ParseArgs(const std::vector<std::string>& argv) {
  fasttext::Args args;
  args.parseArgs(argv);  // the binary's own parser: the same defaults and "manual" marks
  return args;
}

}  // namespace

FastTextLearner::Config FastTextLearner::ParseConfig(const std::string& text) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != kFastTextFamily) throw ConfigError("'" + text + "' is not a fasttext spec");
  Config c;
  c.dim = OptionalInt(spec, "dim", 1, 100'000);
  c.ngrams = OptionalInt(spec, "ngrams", 1, 100);
  c.mincount = spec.Int("mincount", 1, 1, kIntMax);
  c.bucket = OptionalInt(spec, "bucket", 0, kIntMax);
  c.epoch = OptionalInt(spec, "epoch", 1, 1'000'000);
  const double lr = spec.Double("lr", -1, 1e-9, 1000);
  if (lr > 0) c.lr = lr;
  c.loss = Choice(spec, "loss", {"auto", "softmax", "ova", "hs", "ns"});
  c.neg = spec.Int("neg", 5, 1, 1'000'000);
  c.repeat_values = Choice(spec, "values", {"drop", "repeat"}) == "repeat";
  const std::string autotune = spec.String("autotune", "0");
  if (autotune == "auto") {
    c.autotune_first_trials = kAutoFirstTrials;
  } else {
    int64_t seconds = -1;
    const auto [end, error] =
        std::from_chars(autotune.data(), autotune.data() + autotune.size(), seconds);
    if (error != std::errc() || end != autotune.data() + autotune.size() || seconds < 0 ||
        seconds > kIntMax) {
      throw ConfigError("engine spec: autotune=" + autotune +
                        " must be auto or whole seconds from 0 to " + std::to_string(kIntMax));
    }
    c.autotune_seconds = static_cast<double>(seconds);
  }
  c.threads = spec.Int("threads", 0, 0, 1024);
  spec.Finish();
  if (c.bucket == 0 && c.ngrams.value_or(2) > 1) {
    // fastText hashes word n-grams modulo the bucket count (and divides by zero).
    throw ConfigError("engine spec: fasttext bucket=0 needs ngrams=1");
  }
  return c;
}

FastTextLearner::FastTextLearner(const std::string& spec, const DataShape& shape,
                                 const TrainOptions& options)
    : config_(ParseConfig(spec)), options_(options), num_labels_(shape.labels) {}

FastTextLearner::~FastTextLearner() = default;

int FastTextLearner::threads() const {
  return static_cast<int>(config_.threads > 0 ? config_.threads : std::max(1, options_.threads));
}

std::vector<FastTextLearner::Setting> FastTextLearner::TunableSettings() const {
  const bool only_given = config_.autotune();
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
  items.push_back(fmt::format("neg={}", config_.neg));
  if (!text_rows_.value_or(false)) {
    items.push_back(std::string("values=") + (config_.repeat_values ? "repeat" : "drop"));
  }
  items.push_back(config_.autotune_first_trials > 0
                      ? std::string("autotune=auto")
                      : fmt::format("autotune={:g}", config_.autotune_seconds));
  if (config_.threads > 0) items.push_back(fmt::format("threads={}", config_.threads));
  return fmt::format("fasttext:{}", fmt::join(items, ","));
}

// With autotune on, only the settings the spec gives: fastText tunes the rest.
std::vector<std::string> FastTextLearner::CommandLine(const std::string& input) const {
  std::vector<std::string> argv = {"fasttext", "supervised", "-input", input, "-output",
                                   (staged_->dir->path() / "model").string(),  // never written
                                   "-minCount", std::to_string(config_.mincount), "-loss", loss_,
                                   "-neg", std::to_string(config_.neg)};
  for (const Setting& s : TunableSettings()) {
    if (s.value) argv.insert(argv.end(), {s.flag, *s.value});
  }
  argv.insert(argv.end(), {"-thread", std::to_string(threads()), "-seed",
                           std::to_string(options_.seed % (uint64_t{1} << 31)), "-verbose", "2"});
  return argv;
}

TrainSettings FastTextLearner::settings() const {
  const int64_t epochs = epochs_trained_ > 0 ? epochs_trained_ : config_.epoch.value_or(kDefaultEpoch);
  const double lr = lr_trained_ > 0 ? lr_trained_ : config_.lr.value_or(kDefaultLr);
  return {0, lr, static_cast<uint32_t>(epochs), "fastText SGD (HOGWILD), lr decaying linearly to 0"};
}

FastTextRows FastTextLearner::RowFormat(bool labels) const {
  return {.labels = labels, .text = text_rows_.value_or(false), .repeat_values = config_.repeat_values};
}

void FastTextLearner::Stage(const Dataset& train) {
  staged_.reset();
  model_.reset();
  text_rows_ = train.has_text();
  staged_ = StageFastTextRows(train, RowFormat(true), options_.seed, config_.autotune());
  loss_ = config_.loss != "auto" ? config_.loss : AnyMultiLabel(train) ? "ova" : "softmax";
  num_labels_ = std::max(num_labels_, train.num_labels);
}

void FastTextLearner::Train(const Dataset& train, const PausePlan& plan) {
  if (!staged_) Stage(train);
  model_.reset();
  label_ids_.clear();
  train_args_.clear();
  tuned_args_.clear();
  autotune_budget_.clear();
  autotune_trials_.clear();
  if (config_.autotune()) {
    TrainAutotuned(plan);
  } else {
    TrainFixed(plan);
  }
}

void FastTextLearner::TrainFixed(const PausePlan& plan) {
  train_args_ = CommandLine(staged_->train_file.string());
  const fasttext::Args args = ParseArgs(train_args_);
  auto model = std::make_shared<FastTextModel>();
  model_ = model;
  try {
    pauses_ = TrainWithPauses(*model, args, plan, staged_->rows, [this] { BuildLabelMap(); }).summary;
  } catch (...) {
    model_.reset();
    throw;
  }
  epochs_trained_ = args.epoch;
  lr_trained_ = args.lr;
  BuildLabelMap();
}

// fastText's autotune search for its duration (fasttext_autotune.h), then the final training
// on all rows with the arguments it chose, as fastText's autotune retrains after its search.
void FastTextLearner::TrainAutotuned(const PausePlan& plan) {
  std::vector<std::string> argv = CommandLine(staged_->tune_file.string());
  // As fastText's own command line has it (with -autotune-validation, fastText keeps the
  // bucket that word n-grams need).
  argv.insert(argv.end(), {"-autotune-validation", staged_->valid_file.string()});
  const AutotuneSearch search =
      SearchFastTextArgs(ParseArgs(argv), staged_->valid_file.string(),
                         {config_.autotune_seconds, config_.autotune_first_trials,
                          config_.autotune_first_trials > 0 ? kAutoMinFinished : 0,
                          config_.autotune_first_trials > 0 ? kAutoTrialCap : 0});
  autotune_finished_ = search.finished;
  autotune_trials_ = AutotuneTrialsText(search);

  fasttext::Args final_args = search.best;
  final_args.input = staged_->train_file.string();
  final_args.verbose = 2;
  const std::vector<std::string> tuned = TunedArgv(final_args);
  tuned_args_ = Joined(tuned);
  train_args_ = CommandLine(staged_->train_file.string());
  train_args_.insert(train_args_.end(), tuned.begin(), tuned.end());  // later flags win
  auto model = std::make_shared<FastTextModel>();
  model_ = model;
  PausedTraining trained;
  const Clock::time_point final_start = Clock::now();
  try {
    trained = TrainWithPauses(*model, final_args, plan, staged_->rows, [this] { BuildLabelMap(); });
  } catch (...) {
    model_.reset();
    throw;
  }
  pauses_ = trained.summary;
  const double final_seconds =
      std::chrono::duration<double>(Clock::now() - final_start).count() - trained.paused_seconds;
  autotune_budget_ = AutotuneBudgetText(search, final_seconds);
  epochs_trained_ = final_args.epoch;
  lr_trained_ = final_args.lr;
  BuildLabelMap();
}

void FastTextLearner::BuildLabelMap() {
  const auto dict = model_->getDictionary();
  if (label_ids_.size() == static_cast<size_t>(dict->nlabels())) return;
  std::vector<uint32_t> ids;
  for (int32_t i = 0; i < dict->nlabels(); ++i) {
    const std::string name = dict->getLabel(i);
    const std::optional<uint32_t> id = ParseFastTextLabel(name);
    if (!id || *id >= num_labels_) {
      throw std::runtime_error(fmt::format("fastText label '{}' is not one of our {} label ids", name, num_labels_));
    }
    ids.push_back(*id);
  }
  label_ids_ = std::move(ids);
}

void FastTextLearner::CheckTrained(const Dataset& data) const {
  if (!model_ || !text_rows_ || label_ids_.empty()) {
    throw std::logic_error("FastTextLearner: predictions before training");
  }
  if (data.rows() > 0 && (*text_rows_ ? !data.has_text() : !data.has_features())) {
    throw DataError(data.name, 0,
                    std::string("the fastText model was trained on ") +
                        (*text_rows_ ? "text" : "features") + ", which these rows lack");
  }
}

// The row as a line of fastText's input, through its dictionary (words, word n-grams, the
// end-of-line token), then fastText's predict over every label; scores are probabilities.
void FastTextLearner::PredictRow(const Dataset& data, size_t row, uint32_t k, uint32_t* ids,
                                 float* scores) const {
  std::fill_n(ids, k, std::numeric_limits<uint32_t>::max());
  std::fill_n(scores, k, -std::numeric_limits<float>::infinity());
  std::istringstream line(FastTextLine(data, static_cast<uint32_t>(row), RowFormat(false)) + "\n");
  std::vector<int32_t> words, labels;
  model_->getDictionary()->getLine(line, words, labels);
  fasttext::Predictions predictions;
  model_->predict(static_cast<int32_t>(k), words, predictions, 0.0f);
  for (size_t i = 0; i < std::min<size_t>(k, predictions.size()); ++i) {
    ids[i] = label_ids_.at(static_cast<size_t>(predictions[i].second));
    scores[i] = std::exp(predictions[i].first);
  }
}

TopK FastTextLearner::Predict(const Dataset& data, uint32_t k) const {
  CheckTrained(data);
  if (k == 0) throw std::invalid_argument("Predict needs k >= 1");
  TopK top{k, std::vector<uint32_t>(data.rows() * k), std::vector<float>(data.rows() * k)};
  const auto rows = static_cast<int64_t>(data.rows());
#pragma omp parallel for num_threads(threads()) schedule(dynamic, 64)
  for (int64_t r = 0; r < rows; ++r) {
    const auto at = static_cast<size_t>(r) * k;
    PredictRow(data, static_cast<size_t>(r), k, &top.ids[at], &top.scores[at]);
  }
  return top;
}

TopK FastTextLearner::PredictOne(const Dataset& data, size_t row, uint32_t k) const {
  CheckTrained(data);
  if (k == 0) throw std::invalid_argument("PredictOne needs k >= 1");
  TopK top{k, std::vector<uint32_t>(k), std::vector<float>(k)};
  PredictRow(data, row, k, top.ids.data(), top.scores.data());
  return top;
}

void FastTextLearner::Save(const std::string& path) const {
  if (!model_ || label_ids_.empty()) throw std::logic_error("FastTextLearner::Save before training");
  try {
    model_->saveModel(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot save the fastText model to " + path + ": " + e.what());
  }
}

size_t FastTextLearner::model_bytes() const {
  if (!model_ || label_ids_.empty()) return 0;
  const auto input = model_->getInputMatrix(), output = model_->getOutputMatrix();
  size_t bytes = sizeof(float) * static_cast<size_t>(input->size(0) * input->size(1) +
                                                     output->size(0) * output->size(1));
  const auto dict = model_->getDictionary();
  for (int32_t i = 0; i < dict->nwords(); ++i) bytes += dict->getWord(i).size() + 1 + 9;  // + count, type
  for (int32_t i = 0; i < dict->nlabels(); ++i) bytes += dict->getLabel(i).size() + 1 + 9;
  return bytes;
}

std::map<std::string, std::string> FastTextLearner::context() const {
  std::map<std::string, std::string> facts;
  facts["fasttext_library"] = "libfasttext (Debian libfasttext-dev), in-process";
  if (!train_args_.empty()) facts["fasttext_args"] = Joined(train_args_);
  if (!tuned_args_.empty()) facts["fasttext_tuned_args"] = tuned_args_;
  if (!autotune_budget_.empty()) {
    facts["autotune_budget"] = autotune_budget_;
    facts["autotune_finished_trials"] = std::to_string(autotune_finished_);
    facts["autotune_trials"] = autotune_trials_;
  }
  if (!pauses_.empty()) facts["fasttext_pauses"] = pauses_;
  if (staged_) AddStagedFacts(*staged_->dir, facts);
  return facts;
}

}  // namespace sparsebench
