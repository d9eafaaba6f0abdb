#include "baselines/fasttext_learner.h"

#include <fasttext/autotune.h>
#include <fasttext/fasttext.h>
#include <fasttext/meter.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "baselines/fasttext_pauses.h"
#include "baselines/fasttext_staging.h"
#include "datasets/data_error.h"
#include "engine/engine_error.h"
#include "engine/spec.h"

namespace sparsebench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int64_t kDefaultDim = 10, kDefaultNgrams = 2, kDefaultBucket = 10'000'000;
constexpr int64_t kDefaultEpoch = 5;
constexpr double kDefaultLr = 0.1;
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr double kHeldOutFraction = 0.1;
// Autotune: the final training on all rows is estimated as the best trial's time (on 90% of
// them) scaled by the row ratio and this margin.
constexpr double kFinalTrainingMargin = 1.1;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

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

std::string Joined(const std::vector<std::string>& argv) {
  return fmt::format("{}", fmt::join(argv, " "));
}

fasttext::Args ParseArgs(const std::vector<std::string>& argv) {
  fasttext::Args args;
  args.parseArgs(argv);  // the binary's own parser: the same defaults and "manual" marks
  return args;
}

// The settings autotune may change, as fastText's command line would give them.
std::vector<std::string> TunedArgv(const fasttext::Args& a) {
  return {"-epoch",  std::to_string(a.epoch),  "-lr",         fmt::format("{}", a.lr),
          "-dim",    std::to_string(a.dim),    "-wordNgrams", std::to_string(a.wordNgrams),
          "-bucket", std::to_string(a.bucket), "-minn",       std::to_string(a.minn),
          "-maxn",   std::to_string(a.maxn),   "-dsub",       std::to_string(a.dsub),
          "-loss",   a.lossToString(a.loss)};
}

}  // namespace

struct FastTextLearner::Staged {
  std::unique_ptr<TempDir> dir;
  fs::path train_file, tune_file, valid_file;
  uint64_t rows = 0, tune_rows = 0;
};

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
  c.loss = Choice(spec, "loss", {"auto", "softmax", "ova", "hs", "ns"});
  c.neg = spec.Int("neg", 5, 1, 1'000'000);
  c.repeat_values = Choice(spec, "values", {"drop", "repeat"}) == "repeat";
  c.autotune_seconds = spec.Int("autotune", 0, 0, kIntMax);
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
  items.push_back(fmt::format("neg={}", config_.neg));
  if (!text_rows_.value_or(false)) {
    items.push_back(std::string("values=") + (config_.repeat_values ? "repeat" : "drop"));
  }
  items.push_back(fmt::format("autotune={}", config_.autotune_seconds));
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
  CheckHasInput(train);
  const std::vector<uint32_t> labelled = LabelledRows(train);
  if (labelled.empty()) throw DataError(train.name, 0, "no row has a label to train fastText on");
  staged_.reset();
  model_.reset();
  loss_ = config_.loss != "auto" ? config_.loss : AnyMultiLabel(train) ? "ova" : "softmax";
  num_labels_ = std::max(num_labels_, train.num_labels);
  text_rows_ = train.has_text();
  // The published recipes shuffle the training file (real DBPedia files are sorted by class).
  const std::vector<uint32_t> order = SeededPermutation(labelled.size(), options_.seed);
  std::vector<uint32_t> shuffled;
  for (uint32_t i : order) shuffled.push_back(labelled[i]);
  std::vector<uint32_t> tune, valid;
  if (config_.autotune_seconds > 0) {
    if (labelled.size() < 2) throw DataError(train.name, 0, "autotune needs 2 or more labelled rows");
    const double fraction = std::max(kHeldOutFraction, 1.0 / static_cast<double>(labelled.size()));
    const RowSplit split = HeldOutSplit(labelled.size(), fraction, options_.seed);
    std::vector<bool> held_out(train.rows(), false);
    for (uint32_t i : split.held_out) {
      held_out[labelled[i]] = true;
      valid.push_back(labelled[i]);
    }
    for (uint32_t r : shuffled) {
      if (!held_out[r]) tune.push_back(r);
    }
  }
  const FastTextRows format = RowFormat(true);
  auto write = [&](const fs::path& parent) {
    auto staged = std::make_unique<Staged>();
    RemoveStaleFastTextStaging(parent);
    staged->dir = std::make_unique<TempDir>(parent, fmt::format("{}{}-", kFastTextStagingPrefix, getpid()));
    staged->train_file = staged->dir->path() / "train.txt";
    staged->rows = shuffled.size();
    WriteFastTextRows(train, shuffled, format, staged->train_file);
    if (config_.autotune_seconds > 0) {
      staged->tune_file = staged->dir->path() / "tune_train.txt";
      staged->valid_file = staged->dir->path() / "tune_valid.txt";
      staged->tune_rows = tune.size();
      WriteFastTextRows(train, tune, format, staged->tune_file);
      WriteFastTextRows(train, valid, format, staged->valid_file);
    }
    return staged;
  };
  const fs::path parent = FastTextStagingParent();
  try {
    staged_ = write(parent);
  } catch (const std::exception&) {
    if (parent == fs::temp_directory_path()) throw;
    staged_ = write(fs::temp_directory_path());  // /dev/shm full: memory is the only difference
  }
}

void FastTextLearner::Train(const Dataset& train, const PausePlan& plan) {
  if (!staged_) Stage(train);
  model_.reset();
  label_ids_.clear();
  train_args_.clear();
  tuned_args_.clear();
  autotune_budget_.clear();
  if (config_.autotune_seconds > 0) {
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

// fastText's autotune (its AutotuneStrategy: trial 1 = the given arguments, then Gaussian
// steps around the best, narrowing with time), scored like fastText's (f1 of the top label
// on the held-out rows), but within one budget for the search and the final training. The
// search ends at budget - (final training of the best trial, estimated from its time) -
// (the most a trial took outside its interruptible epochs: fastText's dictionary and matrix
// set-up, the validation); a trial is stopped (FastText::abort from its training callback)
// at that deadline, or as soon as its own final training could no longer fit; no trial
// starts that could not end before the deadline at the pace of the fastest so far.
// fasttext::Autotune::train itself cannot do this: it retrains the best arguments after its
// duration, unbounded and without a training callback.
void FastTextLearner::TrainAutotuned(const PausePlan& plan) {
  const double budget = static_cast<double>(config_.autotune_seconds);
  const double scale = kFinalTrainingMargin * static_cast<double>(staged_->rows) /
                       static_cast<double>(std::max<uint64_t>(staged_->tune_rows, 1));
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return Seconds(start); };

  std::vector<std::string> argv = CommandLine(staged_->tune_file.string());
  // As fastText's own command line has it (with -autotune-validation, fastText keeps the
  // bucket that word n-grams need).
  argv.insert(argv.end(), {"-autotune-validation", staged_->valid_file.string(), "-autotune-duration",
                           std::to_string(config_.autotune_seconds)});
  const fasttext::Args original = ParseArgs(argv);
  std::optional<fasttext::Args> best;
  double best_score = 0, best_final_estimate = 0, best_trial_seconds = 0;
  double overhead = 0;                                       // the most a trial spent outside its epochs
  double fastest = std::numeric_limits<double>::infinity();  // the shortest finished trial, validation included
  int trials = 0, finished = 0, stopped = 0, unfitting = 0;
  std::optional<fasttext::AutotuneStrategy> strategy;
  // The search's deadline: the best trial's final training and a trial's overhead must fit.
  auto deadline = [&] { return best ? budget - best_final_estimate - overhead : budget - overhead; };
  {
    const QuietCerr quiet;
    auto search_model = std::make_shared<FastTextModel>();
    while (true) {
      const double now = elapsed();
      if (now + (finished > 0 ? fastest : 0.0) > deadline()) break;
      fasttext::Args args = original;
      if (strategy) args = strategy->ask(now);
      args.verbose = 0;  // as fastText's autotune trains its trials
      ++trials;
      const double trial_start = now;
      std::atomic<bool> aborted{false}, started{false};
      std::atomic<double> first_callback{0};
      auto callback = [&](float, float, double, double, int64_t) {
        const double t = elapsed();
        if (!started.exchange(true)) first_callback = t;
        if (aborted.load(std::memory_order_relaxed)) return;
        if (t > deadline() || t + scale * (t - trial_start) + overhead > budget) {
          if (!aborted.exchange(true)) search_model->abort();
        }
      };
      bool completed = false;
      try {
        search_model->train(args, callback);
        completed = true;
      } catch (const fasttext::FastText::AbortError&) {
        ++stopped;
      } catch (const fasttext::DenseMatrix::EncounteredNaNError&) {
        // a diverging trial, skipped as fastText's autotune does
      } catch (const std::bad_alloc&) {
        // arguments asking for too much memory, skipped as fastText's autotune does
      }
      const double trained = elapsed();
      const double trial_seconds = trained - trial_start;
      if (started) overhead = std::max(overhead, first_callback.load() - trial_start);
      if (completed) {
        ++finished;
        fasttext::Meter meter(false);
        std::ifstream valid(staged_->valid_file);
        search_model->test(valid, original.autotunePredictions, 0.0, meter);
        const double score = meter.f1Score();
        const double validated = elapsed();
        overhead = std::max(overhead, (started ? first_callback.load() - trial_start : trial_seconds) +
                                          validated - trained);
        fastest = std::min(fastest, validated - trial_start);
        if (!best || score > best_score) {
          if (validated + scale * trial_seconds + overhead <= budget) {
            best = args;
            best_score = score;
            best_trial_seconds = trial_seconds;
            best_final_estimate = scale * trial_seconds;
            if (strategy) strategy->updateBest(args);
          } else {
            ++unfitting;  // better, but its final training would not fit the budget
          }
        }
      }
      if (!strategy) {
        // The search's horizon, for the strategy's narrowing: the deadline as trial 1 sets it
        // (half the budget when trial 1 did not finish).
        fasttext::Args horizon = original;
        horizon.autotuneDuration = static_cast<int>(std::max(1.0, std::floor(best ? deadline() : budget / 2)));
        strategy.emplace(horizon, static_cast<std::minstd_rand::result_type>(original.seed));
        strategy->ask(elapsed());  // its trial 1 (the original arguments) is the one just run
        if (best) strategy->updateBest(*best);
      }
    }
  }
  const double search_seconds = elapsed();
  if (!best) {
    throw std::runtime_error(fmt::format(
        "fasttext:autotune={}: no trial could finish and leave time for its final training on all "
        "rows ({} trials in {:.1f} s, {} stopped; trial 1 uses fastText's default arguments on 90% "
        "of the rows); give autotune more seconds",
        config_.autotune_seconds, trials, search_seconds, stopped));
  }

  fasttext::Args final_args = *best;
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
  const double final_seconds = Seconds(final_start) - trained.paused_seconds;
  const double total = search_seconds + final_seconds;
  autotune_budget_ = fmt::format(
      "search {:.1f} s ({} trials, {} finished, {} stopped at the budget, {} better but too slow "
      "to retrain; best validation f1 {:.4f}) + final training on all rows {:.1f} s (estimated "
      "{:.1f} s from its {:.1f} s trial) = {:.1f} s of {} s",
      search_seconds, trials, finished, stopped, unfitting, best_score, final_seconds,
      best_final_estimate, best_trial_seconds, total, config_.autotune_seconds);
  if (total > budget) {
    const double over = total - budget, late = search_seconds - (budget - best_final_estimate);
    autotune_budget_ += fmt::format(": overran by {:.1f} s because ", over);
    if (late > 0 && late >= final_seconds - best_final_estimate) {
      autotune_budget_ += fmt::format(
          "the search ended {:.1f} s past its deadline (a trial's dictionary building and "
          "validation cannot be interrupted)", late);
    } else {
      autotune_budget_ += fmt::format("the final training took {:.1f} s more than estimated",
                                      final_seconds - best_final_estimate);
    }
  }
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
  if (!autotune_budget_.empty()) facts["autotune_budget"] = autotune_budget_;
  if (!pauses_.empty()) facts["fasttext_pauses"] = pauses_;
  if (staged_) facts["fasttext_staged_in"] = staged_->dir->path().string();
  return facts;
}

}  // namespace sparsebench
