#include "engine/train/sparse_learner.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdio>

#include "datasets/data_error.h"
#include "engine/api/engine_error.h"
#include "engine/api/parse_number.h"
#include "engine/api/spec.h"
#include "engine/api/train_defaults.h"
#include "engine/common/memory_limit.h"
#include "engine/lsh/hash_family.h"
#include "engine/lsh/lsh_config.h"
#include "engine/lsh/sparse_inference.h"
#include "engine/model/inference.h"
#include "engine/model/model_io.h"
#include "engine/train/families.h"
#include "engine/train/memory_traffic.h"

namespace sparsebench {

namespace {

// An optional unsigned key: 0 when absent or "auto".
uint32_t AutoUint(Spec& spec, const std::string& key, int64_t min, int64_t max) {
  return static_cast<uint32_t>(spec.AutoInt(key, min, max).value_or(0));
}

}  // namespace

SparseConfig SparseConfig::Parse(const std::string& text, const DataShape& shape) {
  Spec spec = Spec::Parse(text);
  if (spec.family() != kSparseFamily) throw ConfigError("not a sparse engine spec: " + text);
  SparseConfig c;
  c.hidden = static_cast<uint32_t>(spec.Int("hidden", 128, 1, 1 << 16));
  c.out_sparsity = spec.Double("out_sparsity", shape.labels <= 1024 ? 1.0 : 0.005, 1e-7, 1.0);
  // A sparse output layer's update streams the rows it touches through memory: bf16 moments
  // halve what it moves. A dense one keeps fp32, like the dense baselines it is checked against.
  const std::string moments = spec.String("moments", c.out_sparsity < 1.0 ? "bf16" : "fp32");
  if (moments != "fp32" && moments != "bf16") throw ConfigError("moments must be fp32 or bf16");
  c.bf16_moments = moments == "bf16";
  const std::string weights = spec.String("weights", c.bf16_moments ? "bf16" : "fp32");
  if (weights != "fp32" && weights != "bf16") throw ConfigError("weights must be fp32 or bf16");
  c.bf16_weights = weights == "bf16";
  if (c.bf16_weights && !c.bf16_moments) throw ConfigError("weights=bf16 needs moments=bf16");
  c.lr_decay = spec.Double("lr_decay", 1.0, 0.0, 1.0);
  const std::string hash = spec.String("hash", "dwta");
  SelectorParams& p = c.selector;
  p.kind = hash == "random" ? "random" : "lsh";
  p.hash.family = hash == "random" ? "dwta" : hash;
  p.hash.dim = c.hidden;
  p.hash.k = AutoUint(spec, "k", 1, 32);
  p.hash.tables = AutoUint(spec, "l", 1, 4096);
  p.hash.bin_size = AutoUint(spec, "bin", 2, 1024);
  p.range_bits = AutoUint(spec, "range", 1, 28);
  p.capacity = AutoUint(spec, "cap", 1, 1 << 20);
  p.reads = AutoUint(spec, "reads", 1, 1 << 30);
  const std::string select = spec.String("select", "topfreq");
  if (select != "union" && select != "topfreq")
    throw ConfigError("select must be union or topfreq");
  p.top_frequency = select == "topfreq";
  const std::string pad = spec.String("pad", "none");
  if (pad != "none" && pad != "random") throw ConfigError("pad must be none or random");
  p.pad_random = pad == "random";
  p.lsh_share = spec.Double("share", 0.5, 0.0, 1.0);
  // The control draws one by one: uniform sampling as the literature means it, and its
  // strongest form (docs/engine-notes.md, "Random neurons in runs").
  p.random_run = static_cast<uint32_t>(spec.Int("run", p.kind == "random" ? 1 : 16, 1, 1 << 16));
  p.probes = static_cast<uint32_t>(
      spec.AutoInt("probes", 0, MaxProbes(32)).value_or(SelectorParams::kAutoProbes));
  if (const auto rebuild = spec.AutoInt("rebuild", 1, 1 << 30))
    c.rebuild.first = static_cast<uint32_t>(*rebuild);
  c.rebuild.growth = spec.Double("growth", 1.0, 1.0, 10.0);
  c.rebuild.max_gap = static_cast<uint32_t>(spec.Int("max_gap", 1000, 1, 1 << 30));
  c.rebuild.rehash = static_cast<uint32_t>(spec.Int("rehash", 0, 0, 1 << 30));
  spec.Finish();
  if (p.hash.bin_size != 0 && !std::has_single_bit(p.hash.bin_size))
    throw ConfigError("bin must be a power of two");
  if (p.kind == "lsh" && c.ActiveTarget(shape.labels) < shape.labels)
    ResolveLsh(p, shape.labels, c.ActiveTarget(shape.labels));
  return c;
}

std::string SparseConfig::Canonical() const {
  std::string s = "sparse:hidden=" + std::to_string(hidden);
  s += ",out_sparsity=" + NumberText(out_sparsity);
  s += bf16_moments ? ",moments=bf16" : ",moments=fp32";
  s += bf16_weights ? ",weights=bf16" : ",weights=fp32";
  if (lr_decay != 1) s += ",lr_decay=" + NumberText(lr_decay);
  if (out_sparsity >= 1.0) return s;
  const HashParams& h = selector.hash;
  s += ",hash=" + (selector.kind == "random" ? std::string("random") : h.family);
  if (selector.kind == "lsh") {
    // Unresolved settings stay auto: an active target that covers every output resolves none.
    auto or_auto = [](uint32_t v) { return v == 0 ? std::string("auto") : std::to_string(v); };
    s += ",k=" + or_auto(h.k) + ",l=" + or_auto(h.tables);
    if (h.family == "dwta") s += ",bin=" + or_auto(h.bin_size);
    s += ",range=" + or_auto(selector.range_bits) + ",cap=" + or_auto(selector.capacity) +
         ",reads=" + or_auto(selector.reads);
    s += std::string(",select=") + (selector.top_frequency ? "topfreq" : "union");
    s += ",share=" + NumberText(selector.lsh_share) + ",probes=" +
         (selector.probes == SelectorParams::kAutoProbes ? std::string("auto")
                                                         : std::to_string(selector.probes));
  }
  s += std::string(",pad=") + (selector.pad_random ? "random" : "none") +
       ",run=" + std::to_string(selector.random_run);
  if (selector.kind == "lsh") {
    s += ",rebuild=" + (rebuild.first == 0 ? std::string("auto") : std::to_string(rebuild.first)) +
         ",growth=" + NumberText(rebuild.growth) + ",max_gap=" + std::to_string(rebuild.max_gap) +
         ",rehash=" + std::to_string(rebuild.rehash);
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
      options_(WithDefaults(options)),
      network_(NetworkShape{shape.features, config.hidden, shape.labels}, options.seed,
               Storage{config.bf16_weights, config.bf16_moments}) {
  if (shape.features == 0 || shape.labels == 0)
    throw ConfigError("the training data has no features or labels");
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
    throw DataError(source, 0,
                    "the spec says hidden=" + std::to_string(config.hidden) +
                        " but the network has " + std::to_string(s.hidden_dim) + " hidden units");
  }
  return {config, std::move(saved.network)};
}

}  // namespace

SparseLearner::SparseLearner(const std::string& model_path, const TrainOptions& options)
    : SparseLearner(LoadModel(model_path), model_path, options) {}

SparseLearner::SparseLearner(SavedModel saved, const std::string& source,
                             const TrainOptions& options) try
    : SparseLearner(FromSavedModel(std::move(saved), source), options) {
} catch (const ConfigError& e) {
  // The file's settings cannot run here (memory, hash sizes): still the file's error.
  throw DataError(source, 0, e.what());
}

SparseLearner::SparseLearner(std::pair<SparseConfig, Network> loaded, const TrainOptions& options)
    : SparseLearner(loaded.first, std::move(loaded.second), options) {}

SparseLearner::SparseLearner(const SparseConfig& config, Network network,
                             const TrainOptions& options)
    : config_(config), options_(WithDefaults(options)), network_(std::move(network)) {
  assert(config_.hidden == network_.shape.hidden_dim &&
         network_.input.w.size() == size_t{network_.shape.input_dim} * network_.shape.hidden_dim &&
         network_.output.w.size() == size_t{network_.shape.output_dim} * network_.shape.hidden_dim);
  CheckNetworkFits(network_.shape);  // before the Adam moments are allocated
  if (network_.shape.input_dim == 0 || network_.shape.output_dim == 0)
    throw ConfigError("the network has no inputs or outputs");
  network_.input.ResetOptimizer();
  if (config_.bf16_moments)
    network_.output.UseBf16Moments();
  else
    network_.output.ResetOptimizer();
  if (config_.bf16_weights) network_.output.UseBf16Weights();
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
  SelectorParams& p = config_.selector;
  if (p.kind == "lsh") {
    // More buckets than this is no use (most would stay empty) and only costs memory.
    const uint64_t buckets = uint64_t{p.hash.tables} << p.range_bits;
    const uint64_t max_buckets = std::max<uint64_t>(uint64_t{256} * outputs, uint64_t{1} << 20);
    if (buckets > max_buckets) {
      throw ConfigError("l=" + std::to_string(p.hash.tables) + " tables of 2^" +
                        std::to_string(p.range_bits) + " buckets are " + std::to_string(buckets) +
                        " buckets for " + std::to_string(outputs) + " output neurons; at most " +
                        std::to_string(max_buckets) + " (256 per neuron, or 2^20)");
    }
    // Bucket offsets, and the codes and ids of every neuron in every table.
    CheckFitsInMemory((buckets + 2 * uint64_t{p.hash.tables} * outputs) * sizeof(uint32_t),
                      "the LSH tables");
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

TrainSettings SparseLearner::settings() const {
  return {
      options_.batch, options_.lr, options_.epochs,
      std::string("adam, lazy: only the rows that received gradient") +
          (config_.bf16_moments ? "; output-layer moments stored in bf16" : "") +
          (config_.bf16_weights ? "; output-layer weights stored in bf16, stochastically rounded"
                                : "") +
          (config_.lr_decay != 1 ? "; lr falls linearly to lr x lr_decay" : "") + "; " +
          ScheduleText(options_),
      PrecisionText()};
}

std::string SparseLearner::PrecisionText() const {
  if (!config_.bf16_weights && !config_.bf16_moments) return "fp32";
  const char* stored = config_.bf16_weights && config_.bf16_moments ? "weights and Adam moments"
                       : config_.bf16_weights                       ? "weights"
                                                                    : "Adam moments";
  return std::string("output-layer ") + stored + " stored in bf16, fp32 arithmetic";
}

void SparseLearner::Train(const Dataset& train, const PausePlan& plan) {
  for (uint32_t e = 0; e < options_.epochs && TrainOneEpoch(train, plan, e); ++e) {
  }
  trainer_->set_learning_rate(options_.lr);
}

void SparseLearner::ScheduleLearningRate(double done, uint64_t samples) {
  if (config_.lr_decay == 1 && options_.lr_half_life.value_or(0) == 0) return;
  const double progress = std::min(1.0, done / std::max(1.0, static_cast<double>(options_.epochs)));
  trainer_->set_learning_rate(
      static_cast<float>(ScheduledLr(options_, samples) * (1 - (1 - config_.lr_decay) * progress)));
}

bool SparseLearner::TrainOneEpoch(const Dataset& train, const PausePlan& plan,
                                  double epoch_offset) {
  CheckFits(train);
  if (train.num_labels > network_.shape.output_dim) {
    throw ConfigError("training data has more labels than the model's outputs");
  }
  const uint64_t batches = (train.rows() + options_.batch - 1) / options_.batch;
  const uint64_t every = plan.per_epoch == 0 ? 0 : std::max<uint64_t>(1, batches / plan.per_epoch);
  double loss_before = 0;
  uint64_t samples_before = 0;
  auto progress = [&](uint64_t done, const EpochStats& s) {
    Progress p;
    p.epoch = epoch_offset +
              static_cast<double>(done) / static_cast<double>(std::max<uint64_t>(batches, 1));
    p.samples = s.samples;
    if (s.samples > samples_before)
      p.mean_loss = (s.mean_loss - loss_before) / static_cast<double>(s.samples - samples_before);
    loss_before = s.mean_loss;
    samples_before = s.samples;
    return p;
  };
  const uint64_t trained_before = samples_trained_;
  ScheduleLearningRate(epoch_offset, trained_before);
  bool go_on = true;
  EpochStats stats = trainer_->TrainEpoch(train, [&](uint64_t done, const EpochStats& s) {
    ScheduleLearningRate(epoch_offset + static_cast<double>(done) / static_cast<double>(batches),
                         trained_before + s.samples);
    if (every != 0 && done % every == 0 && done < batches) go_on = plan(progress(done, s));
    return go_on;
  });
  samples_trained_ += stats.samples;
  if (!go_on) return false;
  Progress end;
  end.epoch = epoch_offset + 1;
  end.samples = stats.samples;
  end.mean_loss = stats.mean_loss;
  end.epoch_end = true;
  const PhaseBytes bytes = BytesMoved(stats, network_, selector_ ? selector_->bytes() : 0);
  auto PerBatch = [&](uint64_t count) {
    return static_cast<double>(count) / static_cast<double>(std::max<uint64_t>(batches, 1));
  };
  const double out_rows = PerBatch(stats.output_rows_updated);
  const double in_rows = PerBatch(stats.input_rows_updated);
  end.details = {{"mean_active", stats.mean_active},
                 {"seconds_samples", stats.phases.samples},
                 {"seconds_update", stats.phases.update},
                 {"seconds_rebuild", stats.phases.rebuild},
                 {"rebuilds", stats.rebuilds},
                 {"active_neurons", stats.active_neurons},
                 {"buckets_probed", stats.buckets_probed},
                 {"bucket_ids_read", stats.bucket_ids_read},
                 {"multiply_adds", stats.multiply_adds(network_.shape.hidden_dim)},
                 {"output_rows_per_batch", out_rows},
                 {"input_rows_per_batch", in_rows},
                 {"output_rows_share", out_rows / network_.shape.output_dim},
                 {"input_rows_share", in_rows / network_.shape.input_dim},
                 {"bytes_samples", bytes.samples()},
                 {"bytes_samples_input_rows", bytes.input_rows_read},
                 {"bytes_samples_buckets", bytes.buckets_read},
                 {"bytes_samples_output_rows", bytes.output_rows_read},
                 {"bytes_update", bytes.update()},
                 {"bytes_update_output_rows", bytes.output_rows_updated},
                 {"bytes_update_input_rows", bytes.input_rows_updated},
                 {"bytes_rebuild", bytes.rebuild}};
  return plan(end);
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
  return PredictSparse(network_, *selector_, config_.ActiveTarget(network_.shape.output_dim), data,
                       k, options_.threads);
}

TopK SparseLearner::PredictOne(const Dataset& data, size_t row, uint32_t k) const {
  return PredictRow(data.row(row), k);
}

TopK SparseLearner::PredictRow(const SparseRow& row, uint32_t k) const {
  return PredictRowExact(network_, row, k);
}

std::optional<std::vector<std::vector<uint32_t>>> SparseLearner::ActiveSets(
    const Dataset& rows) const {
  if (!selector_) return std::nullopt;
  CheckFits(rows);
  return SelectActive(network_, *selector_, config_.ActiveTarget(network_.shape.output_dim), rows,
                      options_.threads);
}

void SparseLearner::Save(const std::string& path) const { SaveModel(path, spec(), {}, network_); }

}  // namespace sparsebench
