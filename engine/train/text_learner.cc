#include "engine/train/text_learner.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "datasets/data_error.h"
#include "engine/api/engine_error.h"
#include "engine/api/parse_number.h"
#include "engine/api/spec.h"
#include "engine/model/model_io.h"
#include "engine/train/families.h"

namespace sparsebench {
namespace {

constexpr double kPassRows = 250'000;  // auto passes: about this many rows seen in all
constexpr uint32_t kMaxPasses = 12;
constexpr double kHeldOut = 0.1;    // of the training rows, to stop early (small data)
constexpr uint32_t kMinPasses = 3;  // before a held-out accuracy that did not improve stops it
constexpr uint32_t kTextBatch = 256;

std::string Auto(uint64_t v) { return v == 0 ? "auto" : std::to_string(v); }

uint32_t AutoInt(Spec& spec, const std::string& key, int64_t max) {
  return static_cast<uint32_t>(spec.AutoInt(key, 1, max).value_or(0));
}

double Accuracy(const TopK& top, const Dataset& truth) {
  const Metrics m = ComputeMetrics(top, truth);
  return m.accuracy.value_or(m.p_at_1);
}

}  // namespace

TextConfig TextConfig::Parse(const std::string& text) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != kTextFamily) throw ConfigError("not a text engine spec: " + text);
  TextConfig c;
  c.featurizer.buckets = AutoInt(spec, "buckets", 1 << 26);
  c.featurizer.bigrams = spec.Int("bigrams", 1, 0, 1) == 1;
  c.featurizer.binary = spec.Int("binary", 0, 0, 1) == 1;
  c.hidden = AutoInt(spec, "hidden", 1 << 14);
  c.out_sparsity = spec.AutoDouble("out_sparsity", 1e-7, 1).value_or(-1);
  c.epochs = AutoInt(spec, "epochs", 10000);
  c.lr = spec.AutoDouble("lr", 1e-7, 10).value_or(0);
  c.lr_decay = spec.Double("lr_decay", 0.5, 0, 1);
  spec.Finish();
  return c;
}

void TextConfig::Resolve(size_t rows, uint32_t labels) {
  if (featurizer.buckets == 0) {
    featurizer.buckets = std::clamp<uint32_t>(
        std::bit_ceil(static_cast<uint32_t>(std::min<size_t>(rows * 4, 1u << 20))), 1u << 16,
        1u << 20);
  }
  if (hidden == 0) hidden = labels <= 16 ? 64 : 128;
  if (out_sparsity < 0) out_sparsity = labels <= 1024 ? 1.0 : 0.005;
  if (lr == 0) lr = 0.005;
}

std::string TextConfig::Canonical() const {
  // Each setting on its own: "auto" (negative or zero: not resolved yet) or its value.
  return "text:buckets=" + Auto(featurizer.buckets) +
         ",bigrams=" + std::to_string(featurizer.bigrams) +
         ",binary=" + std::to_string(featurizer.binary) + ",hidden=" + Auto(hidden) +
         ",out_sparsity=" + (out_sparsity < 0 ? std::string("auto") : NumberText(out_sparsity)) +
         ",lr=" + (lr == 0 ? std::string("auto") : NumberText(lr)) +
         ",lr_decay=" + NumberText(lr_decay) + ",epochs=" + Auto(epochs);
}

std::string TextConfig::SparseSpec() const {
  return "sparse:hidden=" + std::to_string(hidden) + ",out_sparsity=" + NumberText(out_sparsity);
}

TextLearner::TextLearner(const std::string& spec, const DataShape& shape,
                         const TrainOptions& options)
    : config_(TextConfig::Parse(spec)),
      options_(options),
      featurizer_(FeaturizerOptions{}) {  // until Resolve
  if (shape.labels == 0) throw ConfigError("the training data has no labels");
  if (options.lr > 0) config_.lr = options.lr;
  if (options.epochs > 0) config_.epochs = options.epochs;
  if (options_.batch == 0) options_.batch = kTextBatch;
  label_names_.resize(shape.labels);
}

TextLearner::TextLearner(const std::string& model_path, const TrainOptions& options)
    : TextLearner(LoadModel(model_path), model_path, options) {}

// Every field is checked against the others before use: the checksum only catches accidents.
TextLearner::TextLearner(SavedModel saved, const std::string& source, const TrainOptions& options)
    : options_(options), featurizer_(FeaturizerOptions{}) {
  if (options_.batch == 0) options_.batch = kTextBatch;
  const NetworkShape s = saved.network.shape;
  try {
    config_ = TextConfig::Parse(saved.spec);
  } catch (const ConfigError& e) {
    throw DataError(source, 0, std::string("model spec: ") + e.what());
  }
  auto mismatch = [&](const std::string& what) {
    throw DataError(source, 0,
                    "the text model's " + what + " does not match its network (" +
                        std::to_string(s.input_dim) + " inputs, " + std::to_string(s.hidden_dim) +
                        " hidden units, " + std::to_string(s.output_dim) + " outputs)");
  };
  for (const auto& [key, value] : saved.metadata) {
    if (key == "label") label_names_.push_back(value);
  }
  if (label_names_.size() != s.output_dim)
    mismatch("label count " + std::to_string(label_names_.size()));
  if (config_.featurizer.buckets != s.input_dim)
    mismatch("buckets=" + Auto(config_.featurizer.buckets));
  if (config_.hidden != s.hidden_dim) mismatch("hidden=" + Auto(config_.hidden));
  if (config_.out_sparsity < 0) mismatch("out_sparsity=auto");
  featurizer_ = Featurizer(config_.featurizer);
  const DataShape shape{s.input_dim, s.output_dim};
  try {
    inner_ = std::make_unique<SparseLearner>(SparseConfig::Parse(config_.SparseSpec(), shape),
                                             std::move(saved.network), options_);
  } catch (const ConfigError& e) {
    throw DataError(source, 0, e.what());
  }
}

TextLearner::~TextLearner() = default;

void TextLearner::Build(uint32_t labels) {
  featurizer_ = Featurizer(config_.featurizer);
  const DataShape shape{config_.featurizer.buckets, labels};
  TrainOptions options = options_;
  options.lr = config_.lr;
  options.lr_half_life = 0;  // the text engine schedules its own rate (lr_decay)
  inner_ = std::make_unique<SparseLearner>(SparseConfig::Parse(config_.SparseSpec(), shape), shape,
                                           options);
}

Dataset TextLearner::Featurized(const Dataset& data) const {
  if (!data.has_text())
    throw ConfigError("the text engine needs raw text (a CSV or fastText file)");
  Dataset copy;
  copy.text = data.text;
  copy.label_offsets = data.label_offsets;
  copy.label_ids = data.label_ids;
  copy.num_labels = data.num_labels;
  FeaturizeDataset(copy, featurizer_, options_.threads);
  return copy;
}

uint32_t TextLearner::Passes(size_t rows) const {
  if (config_.epochs != 0) return config_.epochs;
  const double passes = std::ceil(kPassRows / static_cast<double>(std::max<size_t>(rows, 1)));
  return std::clamp<uint32_t>(static_cast<uint32_t>(passes), 1, kMaxPasses);
}

TrainSettings TextLearner::settings() const {
  return {options_.batch, config_.lr, passes_done_ > 0 ? passes_done_ : config_.epochs,
          "adam, lazy: only the rows that received gradient; lr falls linearly to lr x lr_decay",
          inner_ ? inner_->settings().precision : "fp32"};
}

// Passes: `epochs`, or by default about kPassRows rows in all (one pass over a 560K-row set),
// stopping early when accuracy on a held-out slice stops improving (that evaluation is part of
// training). The learning rate falls linearly from lr to lr * lr_decay over all batches.
void TextLearner::Train(const Dataset& train, const PausePlan& plan) {
  if (!inner_) {
    const uint32_t labels = std::max(train.num_labels, static_cast<uint32_t>(label_names_.size()));
    config_.Resolve(train.rows(), labels);
    Build(labels);
    for (uint32_t l = 0; l < train.num_labels; ++l) label_names_[l] = train.label_name(l);
  }
  const bool automatic = config_.epochs == 0;
  const uint32_t passes = Passes(train.rows());
  Dataset all = Featurized(train), fit, held_out;
  const bool stop_early = automatic && passes > 1;
  if (stop_early) {
    const RowSplit split = HeldOutSplit(all.rows(), kHeldOut, options_.seed);
    fit = TakeRows(all, split.train);
    held_out = TakeRows(all, split.held_out);
  }
  const Dataset& data = stop_early ? fit : all;
  const uint64_t batches = (data.rows() + options_.batch - 1) / options_.batch;
  const double total_batches = static_cast<double>(batches * passes);
  const uint64_t every = plan.per_epoch == 0 ? 0 : std::max<uint64_t>(1, batches / plan.per_epoch);
  double best = -1;
  passes_done_ = 0;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    Progress end;
    bool go_on = true;
    const PausePlan each_batch{
        static_cast<uint32_t>(batches),
        [&](const Progress& p) {
          const auto done =
              static_cast<uint64_t>(std::llround(p.epoch * static_cast<double>(batches)));
          const double progress = (static_cast<double>(pass * batches + done)) / total_batches;
          inner_->set_learning_rate(
              static_cast<float>(config_.lr * (1 - (1 - config_.lr_decay) * progress)));
          Progress outer = p;
          outer.epoch = pass + p.epoch;
          if (p.epoch_end) {
            end = outer;
          } else if (every != 0 && done % every == 0) {
            go_on = plan(outer);
          }
        },
        [&] { return !go_on; }};
    if (!inner_->TrainOneEpoch(data, each_batch, 0)) break;
    ++passes_done_;
    bool stop = false;
    if (stop_early) {
      const double accuracy = Accuracy(inner_->Predict(held_out, 5), held_out);
      end.details["held_out_accuracy"] = accuracy;
      stop = accuracy <= best && pass + 1 >= kMinPasses;
      best = std::max(best, accuracy);
    }
    end.details["passes"] = passes_done_;
    if (!plan(end) || stop) break;
  }
}

TopK TextLearner::Predict(const Dataset& data, uint32_t k) const {
  if (!inner_) throw ConfigError("the text model is not trained");
  return inner_->Predict(Featurized(data), k);
}

TopK TextLearner::PredictOne(const Dataset& data, size_t row, uint32_t k) const {
  if (!data.has_text())
    throw ConfigError("the text engine needs raw text (a CSV or fastText file)");
  return PredictText(data.text.at(row), k);
}

TopK TextLearner::PredictText(std::string_view text, uint32_t k) const {
  if (!inner_) throw ConfigError("the text model is not trained");
  FeatureVector features;
  std::vector<uint32_t> scratch;
  featurizer_.Featurize(text, features, scratch);
  return inner_->PredictRow(SparseRow{features.ids, features.values, {}}, k);
}

std::optional<std::vector<std::vector<uint32_t>>> TextLearner::ActiveSets(
    const Dataset& rows) const {
  if (!inner_) return std::nullopt;
  return inner_->ActiveSets(Featurized(rows));
}

void TextLearner::Save(const std::string& path) const {
  if (!inner_) throw ConfigError("the text model is not trained");
  ModelMetadata metadata;
  for (const std::string& name : label_names_) metadata.emplace_back("label", name);
  SaveModel(path, spec(), metadata, inner_->network());
}

size_t TextLearner::model_bytes() const { return inner_ ? inner_->model_bytes() : 0; }

std::map<std::string, std::string> TextLearner::context() const {
  return {{"featurizer", featurizer_.Describe()}, {"inner_engine", inner_ ? inner_->spec() : ""}};
}

}  // namespace sparsebench
