#include "engine/text_learner.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "datasets/data_error.h"
#include "engine/engine_error.h"
#include "engine/model_io.h"
#include "engine/spec.h"

namespace sparsebench {
namespace {

constexpr double kPassRows = 250'000;  // auto passes: about this many rows seen in all
constexpr uint32_t kMaxPasses = 12;
constexpr double kHeldOut = 0.1;       // of the training rows, to stop early (small data)
constexpr uint32_t kMinPasses = 3;     // before a held-out accuracy that did not improve stops it

std::string Auto(uint64_t v) { return v == 0 ? "auto" : std::to_string(v); }

uint32_t AutoInt(Spec& spec, const std::string& key, int64_t max) {
  const std::string v = spec.String(key, "auto");
  return v == "auto" ? 0 : static_cast<uint32_t>(Spec::Parse("x:" + key + "=" + v).Int(key, 0, 1, max));
}

double Accuracy(const TopK& top, const Dataset& truth) {
  const Metrics m = ComputeMetrics(top, truth);
  return m.accuracy.value_or(m.p_at_1);
}

}  // namespace

TextConfig TextConfig::Parse(const std::string& text) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != "text") throw ConfigError("not a text engine spec: " + text);
  TextConfig c;
  c.featurizer.buckets = AutoInt(spec, "buckets", 1 << 26);
  c.featurizer.bigrams = spec.Int("bigrams", 1, 0, 1) == 1;
  c.featurizer.binary = spec.Int("binary", 0, 0, 1) == 1;
  c.hidden = AutoInt(spec, "hidden", 1 << 14);
  const std::string sparsity = spec.String("out_sparsity", "auto");
  c.out_sparsity = sparsity == "auto" ? -1 : Spec::Parse("x:s=" + sparsity).Double("s", 1, 1e-7, 1);
  c.epochs = AutoInt(spec, "epochs", 10000);
  const std::string lr = spec.String("lr", "auto");
  c.lr = lr == "auto" ? 0 : Spec::Parse("x:lr=" + lr).Double("lr", 0, 1e-7, 10);
  c.lr_decay = spec.Double("lr_decay", 0.5, 0, 1);
  spec.Finish();
  return c;
}

void TextConfig::Resolve(size_t rows, uint32_t labels) {
  if (featurizer.buckets == 0) {
    featurizer.buckets = std::clamp<uint32_t>(std::bit_ceil(static_cast<uint32_t>(std::min<size_t>(rows * 4, 1u << 20))), 1u << 16, 1u << 20);
  }
  if (hidden == 0) hidden = labels <= 16 ? 64 : 128;
  if (out_sparsity < 0) out_sparsity = labels <= 1024 ? 1.0 : 0.005;
  if (lr == 0) lr = 0.005;
}

std::string TextConfig::Canonical() const {
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, ",out_sparsity=%g,lr=%g,lr_decay=%g", out_sparsity, lr, lr_decay);
  return "text:buckets=" + Auto(featurizer.buckets) + ",bigrams=" + std::to_string(featurizer.bigrams) +
         ",binary=" + std::to_string(featurizer.binary) + ",hidden=" + Auto(hidden) +
         (out_sparsity < 0 ? std::string(",out_sparsity=auto,lr=auto,lr_decay=0.5") : std::string(numbers)) +
         ",epochs=" + Auto(epochs);
}

std::string TextConfig::SparseSpec() const {
  char sparsity[32];
  std::snprintf(sparsity, sizeof sparsity, "%g", out_sparsity);
  return "sparse:hidden=" + std::to_string(hidden) + ",out_sparsity=" + sparsity;
}

TextLearner::TextLearner(const std::string& spec, const DataShape& shape, const TrainOptions& options)
    : config_(TextConfig::Parse(spec)), options_(options), featurizer_(FeaturizerOptions{}) {  // until Resolve
  if (shape.labels == 0) throw ConfigError("the training data has no labels");
  if (options.lr_from_user) config_.lr = options.lr;
  if (options.passes > 0) config_.epochs = options.passes;
  label_names_.resize(shape.labels);
}

TextLearner::TextLearner(const std::string& model_path, const TrainOptions& options)
    : TextLearner(LoadModel(model_path), model_path, options) {}

// Every field is checked against the others before use: the checksum only catches accidents.
TextLearner::TextLearner(SavedModel saved, const std::string& source, const TrainOptions& options)
    : options_(options), featurizer_(FeaturizerOptions{}) {
  const NetworkShape s = saved.network.shape;
  try {
    config_ = TextConfig::Parse(saved.spec);
  } catch (const ConfigError& e) {
    throw DataError(source, 0, std::string("model spec: ") + e.what());
  }
  auto mismatch = [&](const std::string& what) {
    throw DataError(source, 0, "the text model's " + what + " does not match its network (" +
                                   std::to_string(s.input_dim) + " inputs, " + std::to_string(s.hidden_dim) +
                                   " hidden units, " + std::to_string(s.output_dim) + " outputs)");
  };
  for (const auto& [key, value] : saved.metadata) {
    if (key == "label") label_names_.push_back(value);
  }
  if (label_names_.size() != s.output_dim) mismatch("label count " + std::to_string(label_names_.size()));
  if (config_.featurizer.buckets != s.input_dim) mismatch("buckets=" + Auto(config_.featurizer.buckets));
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
  options.lr = static_cast<float>(config_.lr);
  inner_ = std::make_unique<SparseLearner>(SparseConfig::Parse(config_.SparseSpec(), shape), shape, options);
}

Dataset TextLearner::Featurized(const Dataset& data) const {
  if (!data.has_text()) throw ConfigError("the text engine needs raw text (a CSV or fastText file)");
  Dataset copy;
  copy.text = data.text;
  copy.label_offsets = data.label_offsets;
  copy.label_ids = data.label_ids;
  copy.num_labels = data.num_labels;
  FeaturizeDataset(copy, featurizer_, options_.threads);
  return copy;
}

// Passes: `epochs`, or by default about kPassRows rows in all (one pass over a 560K-row set),
// stopping early when accuracy on a held-out slice stops improving. The learning rate falls
// linearly from lr to lr * lr_decay over all batches.
EpochReport TextLearner::TrainEpoch(const Dataset& train, const BatchHook& hook) {
  const auto start = std::chrono::steady_clock::now();
  if (!inner_) {
    config_.Resolve(train.rows(), std::max(train.num_labels, static_cast<uint32_t>(label_names_.size())));
    Build(std::max(train.num_labels, static_cast<uint32_t>(label_names_.size())));
    for (uint32_t l = 0; l < train.num_labels; ++l) label_names_[l] = train.label_name(l);
  }
  const bool automatic = config_.epochs == 0;
  const uint32_t passes = automatic ? std::clamp<uint32_t>(static_cast<uint32_t>(std::ceil(kPassRows / std::max<size_t>(train.rows(), 1))), 1, kMaxPasses) : config_.epochs;
  Dataset all = Featurized(train), fit, held_out;
  const bool stop_early = automatic && passes > 1;
  if (stop_early) {
    const RowSplit split = HeldOutSplit(all.rows(), kHeldOut, options_.seed);
    fit = TakeRows(all, split.train);
    held_out = TakeRows(all, split.held_out);
  }
  const Dataset& data = stop_early ? fit : all;
  const double featurize_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const uint64_t batches_per_pass = (data.rows() + options_.batch - 1) / options_.batch;
  const double total_batches = static_cast<double>(batches_per_pass * passes);
  EpochReport report;
  report.seconds = featurize_seconds;
  double best = -1;
  uint32_t done = 0;
  for (uint32_t pass = 0; pass < passes; ++pass, ++done) {
    BatchHook schedule{1, [&](uint64_t batches, double seconds) {
      const double progress = static_cast<double>(pass * batches_per_pass + batches) / total_batches;
      inner_->set_learning_rate(static_cast<float>(config_.lr * (1 - (1 - config_.lr_decay) * progress)));
      if (hook.interval != 0 && hook.call && batches % hook.interval == 0) hook.call(batches, report.seconds + seconds);
    }};
    const EpochReport r = inner_->TrainEpoch(data, schedule);
    report.seconds += r.seconds;
    report.samples += r.samples;
    report.mean_loss = r.mean_loss;
    if (stop_early) {
      const auto eval_start = std::chrono::steady_clock::now();
      const double accuracy = Accuracy(inner_->Predict(held_out, 5), held_out);
      report.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - eval_start).count();
      if (accuracy <= best && pass + 1 >= kMinPasses) {
        ++done;
        break;
      }
      best = std::max(best, accuracy);
    }
  }
  report.details["passes"] = done;
  report.details["seconds_featurize"] = featurize_seconds;
  if (stop_early) report.details["held_out_accuracy"] = best;
  return report;
}

TopK TextLearner::Predict(const Dataset& data, uint32_t k) const {
  if (!inner_) throw ConfigError("the text model is not trained");
  return inner_->Predict(Featurized(data), k);
}

TopK TextLearner::PredictText(std::string_view text, uint32_t k) const {
  if (!inner_) throw ConfigError("the text model is not trained");
  FeatureVector features;
  std::vector<uint32_t> scratch;
  featurizer_.Featurize(text, features, scratch);
  return inner_->PredictOne(SparseRow{features.ids, features.values, {}}, k);
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
