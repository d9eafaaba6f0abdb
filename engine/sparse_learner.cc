#include "engine/sparse_learner.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>

#include "datasets/data_error.h"
#include "engine/memory_limit.h"

#include "engine/engine_error.h"
#include "engine/inference.h"
#include "engine/model_io.h"
#include "engine/spec.h"

namespace sparsebench {

SparseConfig SparseConfig::Parse(const std::string& text, const DataShape& shape) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != "sparse") throw ConfigError("not a sparse engine spec: " + text);
  SparseConfig c;
  c.hidden = static_cast<uint32_t>(spec.Int("hidden", 128, 1, 1 << 16));
  c.out_sparsity = spec.Double("out_sparsity", shape.labels <= 1024 ? 1.0 : 0.005, 1e-7, 1.0);
  const std::string hash = spec.String("hash", "dwta");
  c.selector.kind = hash == "random" ? "random" : "lsh";
  c.selector.hash.family = hash == "random" ? "dwta" : hash;
  c.selector.hash.dim = c.hidden;
  c.selector.hash.k = static_cast<uint32_t>(spec.Int("k", hash == "dwta" ? 3 : 9, 1, 32));
  c.selector.hash.tables = static_cast<uint32_t>(spec.Int("l", 16, 1, 4096));
  c.selector.hash.bin_size = static_cast<uint32_t>(spec.Int("bin", 8, 2, 1024));
  const std::string range = spec.String("range", "auto");
  c.selector.range_bits =
      range == "auto" ? 0 : static_cast<uint32_t>(Spec::Parse("x:range=" + range).Int("range", 0, 1, 28));
  const std::string cap = spec.String("cap", "auto");
  if (cap != "auto") c.selector.capacity = static_cast<uint32_t>(Spec::Parse("x:cap=" + cap).Int("cap", 0, 1, 1 << 20));
  else c.selector.capacity = 0;
  const std::string select = spec.String("select", "union");
  if (select != "union" && select != "topfreq") throw ConfigError("select must be union or topfreq");
  c.selector.top_frequency = select == "topfreq";
  const std::string pad = spec.String("pad", "none");
  if (pad != "none" && pad != "random") throw ConfigError("pad must be none or random");
  c.selector.pad_random = pad == "random";
  const std::string rebuild = spec.String("rebuild", "auto");
  if (rebuild != "auto") {
    Spec single = Spec::Parse("x:rebuild=" + rebuild);
    c.rebuild.first = static_cast<uint32_t>(single.Int("rebuild", 0, 1, 1 << 30));
  }
  c.rebuild.growth = spec.Double("growth", 1.0, 1.0, 10.0);
  c.rebuild.max_gap = static_cast<uint32_t>(spec.Int("max_gap", 1000, 1, 1 << 30));
  c.rebuild.rehash = static_cast<uint32_t>(spec.Int("rehash", 0, 0, 1 << 30));
  spec.Finish();
  if (!std::has_single_bit(c.selector.hash.bin_size)) throw ConfigError("bin must be a power of two");
  return c;
}

std::string SparseConfig::Canonical() const {
  std::string s = "sparse:hidden=" + std::to_string(hidden);
  char sparsity[32];
  std::snprintf(sparsity, sizeof sparsity, "%g", out_sparsity);
  s += std::string(",out_sparsity=") + sparsity;
  if (out_sparsity >= 1.0) return s;
  const HashParams& h = selector.hash;
  s += ",hash=" + (selector.kind == "random" ? std::string("random") : h.family);
  if (selector.kind == "lsh") {
    s += ",k=" + std::to_string(h.k) + ",l=" + std::to_string(h.tables);
    if (h.family == "dwta") s += ",bin=" + std::to_string(h.bin_size);
    auto or_auto = [](uint32_t v) { return v == 0 ? std::string("auto") : std::to_string(v); };
    s += ",range=" + or_auto(selector.range_bits) + ",cap=" + or_auto(selector.capacity);
    s += std::string(",select=") + (selector.top_frequency ? "topfreq" : "union");
  }
  s += std::string(",pad=") + (selector.pad_random ? "random" : "none");
  if (selector.kind == "lsh") {
    char growth[32];
    std::snprintf(growth, sizeof growth, "%g", rebuild.growth);
    s += ",rebuild=" + (rebuild.first == 0 ? std::string("auto") : std::to_string(rebuild.first)) +
         ",growth=" + growth +
         ",max_gap=" + std::to_string(rebuild.max_gap) + ",rehash=" + std::to_string(rebuild.rehash);
  }
  return s;
}

uint32_t SparseConfig::ActiveTarget(uint32_t outputs) const {
  if (out_sparsity >= 1.0) return outputs;
  return static_cast<uint32_t>(std::max(1.0, std::ceil(out_sparsity * outputs)));
}

SparseLearner::SparseLearner(const SparseConfig& config, const DataShape& shape,
                             const TrainOptions& options)
    : config_(config),
      options_(options),
      network_(NetworkShape{shape.features, config.hidden, shape.labels}, options.seed) {
  if (shape.features == 0 || shape.labels == 0) throw ConfigError("the training data has no features or labels");
  ResolveSelector();
  MakeTrainer();
}

namespace {

// The spec must parse and describe the stored network (LoadModel checked the network's own
// sizes); what disagrees is the file's fault, so errors name it.
std::pair<SparseConfig, Network> FromSavedModel(SavedModel saved, const std::string& source) {
  const NetworkShape& s = saved.network.shape;
  SparseConfig config;
  try {
    config = SparseConfig::Parse(saved.spec, DataShape{s.input_dim, s.output_dim});
  } catch (const ConfigError& e) {
    throw DataError(source, 0, std::string("model spec: ") + e.what());
  }
  if (config.hidden != s.hidden_dim) {
    throw DataError(source, 0, "the spec says hidden=" + std::to_string(config.hidden) + " but the network has " +
                                   std::to_string(s.hidden_dim) + " hidden units");
  }
  return {config, std::move(saved.network)};
}

}  // namespace

SparseLearner::SparseLearner(const std::string& model_path, const TrainOptions& options)
    : SparseLearner(LoadModel(model_path), model_path, options) {}

SparseLearner::SparseLearner(SavedModel saved, const std::string& source, const TrainOptions& options) try
    : SparseLearner(FromSavedModel(std::move(saved), source), options) {
} catch (const ConfigError& e) {
  // The file's settings cannot run here (memory, hash sizes): still the file's error.
  throw DataError(source, 0, e.what());
}

SparseLearner::SparseLearner(std::pair<SparseConfig, Network> loaded, const TrainOptions& options)
    : SparseLearner(loaded.first, std::move(loaded.second), options) {}

SparseLearner::SparseLearner(const SparseConfig& config, Network network, const TrainOptions& options)
    : config_(config), options_(options), network_(std::move(network)) {
  assert(config_.hidden == network_.shape.hidden_dim && network_.input.w.size() == size_t{network_.shape.input_dim} * network_.shape.hidden_dim &&
         network_.output.w.size() == size_t{network_.shape.output_dim} * network_.shape.hidden_dim);
  CheckNetworkFits(network_.shape);  // before the Adam moments are allocated
  if (network_.shape.input_dim == 0 || network_.shape.output_dim == 0) throw ConfigError("the network has no inputs or outputs");
  network_.input.ResetOptimizer();
  network_.output.ResetOptimizer();
  ResolveSelector();
  MakeTrainer();
}

SparseLearner::~SparseLearner() = default;

void SparseLearner::set_learning_rate(float lr) {
  options_.lr = lr;
  trainer_->set_learning_rate(lr);
}

void SparseLearner::ResolveSelector() {
  config_.selector.hash.seed = MixSeed(options_.seed, 0x15b);
  const uint32_t outputs = network_.shape.output_dim;
  if (config_.ActiveTarget(outputs) >= outputs) return;
  // Resolve "auto" settings so the canonical spec names what actually ran. A bucket may
  // hold twice a table's share of the target, so the union can reach the target.
  SelectorParams& p = config_.selector;
  if (p.range_bits == 0) p.range_bits = std::clamp<uint32_t>(std::bit_width(std::max(outputs / 4, 1u)), 4, 24);
  if (p.capacity == 0) p.capacity = std::max(64u, 2 * config_.ActiveTarget(outputs) / p.hash.tables);
  if (p.kind == "lsh") {
    // More buckets than this is no use (most would stay empty) and only costs memory.
    const uint64_t buckets = uint64_t{p.hash.tables} << p.range_bits;
    const uint64_t max_buckets = std::max<uint64_t>(uint64_t{256} * outputs, uint64_t{1} << 20);
    if (buckets > max_buckets) {
      throw ConfigError("l=" + std::to_string(p.hash.tables) + " tables of 2^" + std::to_string(p.range_bits) +
                        " buckets are " + std::to_string(buckets) + " buckets for " + std::to_string(outputs) +
                        " output neurons; at most " + std::to_string(max_buckets) + " (256 per neuron, or 2^20)");
    }
    // Bucket offsets, and the codes and ids of every neuron in every table.
    CheckFitsInMemory((buckets + 2 * uint64_t{p.hash.tables} * outputs) * sizeof(uint32_t), "the LSH tables");
  }
  selector_ = MakeNeuronSelector(p, outputs);
}

void SparseLearner::MakeTrainer() {
  TrainerConfig tc;
  tc.batch = options_.batch;
  tc.adam.lr = options_.lr;
  tc.threads = options_.threads;
  tc.seed = options_.seed;
  tc.active_target = selector_ ? config_.ActiveTarget(network_.shape.output_dim) : 0;
  tc.rebuild = config_.rebuild;
  trainer_ = std::make_unique<Trainer>(network_, selector_.get(), tc);
}

EpochReport SparseLearner::TrainEpoch(const Dataset& train, const BatchHook& hook) {
  CheckFits(train);
  if (train.num_labels > network_.shape.output_dim) {
    throw ConfigError("training data has more labels than the model's outputs");
  }
  EpochStats stats = trainer_->TrainEpoch(train, [&](uint64_t batches, double seconds) {
    if (hook.interval != 0 && batches % hook.interval == 0 && hook.call) hook.call(batches, seconds);
  });
  EpochReport report;
  report.samples = stats.samples;
  report.seconds = stats.seconds;
  report.mean_loss = stats.mean_loss;
  report.details["mean_active"] = stats.mean_active;
  report.details["seconds_samples"] = stats.phases.samples;
  report.details["seconds_update"] = stats.phases.update;
  report.details["seconds_rebuild"] = stats.phases.rebuild;
  report.details["rebuilds"] = stats.rebuilds;
  return report;
}

void SparseLearner::CheckFits(const Dataset& data) const {
  if (data.num_features > network_.shape.input_dim) {
    throw ConfigError("data has " + std::to_string(data.num_features) + " features, the model " +
                      std::to_string(network_.shape.input_dim));
  }
}

TopK SparseLearner::Predict(const Dataset& data, uint32_t k) const {
  CheckFits(data);
  return PredictExact(network_, data, k, options_.threads);
}

TopK SparseLearner::PredictWithSelector(const Dataset& data, uint32_t k) const {
  if (!selector_) return Predict(data, k);
  CheckFits(data);
  return PredictSparse(network_, *selector_, config_.ActiveTarget(network_.shape.output_dim), data, k,
                       options_.threads);
}

TopK SparseLearner::PredictOne(const SparseRow& row, uint32_t k) const {
  return PredictRowExact(network_, row, k);
}

void SparseLearner::Save(const std::string& path) const {
  SaveModel(path, spec(), {}, network_);
}

}  // namespace sparsebench
