#include "baselines/torch_learner.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <cblas.h>
#include <torch/torch.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "baselines/families.h"
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <vector>

#include "baselines/blas_info.h"
#include "baselines/cpu_bf16.h"
#include "baselines/epoch_loop.h"
#include "baselines/versions.h"
#include "engine/api/engine_error.h"
#include "engine/api/train_defaults.h"
#include "engine/model/model_io.h"

namespace sparsebench {
namespace {

torch::Tensor Wrap(const float* data, std::vector<int64_t> sizes) {
  return torch::from_blob(const_cast<float*>(data), sizes, torch::kFloat32);
}

// Every step LibTorch allocates and frees some hundred MB of tensors (logits, softmax, their
// gradients, Adam's temporaries). glibc serves blocks over 32 MB with mmap and unmaps them
// on free, so each step page-faults them in again. Keeping freed memory in the heap trades
// resident memory for that time (measured: docs/baselines-notes.md). A cell is a process of
// its own, so this setting is too.
void KeepFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

// torch.autocast("cpu", dtype=torch.bfloat16) for one scope: inside it LibTorch runs linear
// layers and matrix products in bf16 (through oneDNN) on casts of the fp32 weights, whose
// gradients come back in fp32. Autocast's state is per thread; leaving the scope turns it off.
class CpuAutocast {
 public:
  explicit CpuAutocast(bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(true);
  }
  ~CpuAutocast() {
    if (!enabled_) return;
    at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
  }
  CpuAutocast(const CpuAutocast&) = delete;
  CpuAutocast& operator=(const CpuAutocast&) = delete;

 private:
  bool enabled_;
};

// The Adam constants every learner shares (engine/model/parameters.h's AdamConfig defaults).
constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;

}  // namespace

struct TorchLearner::Model : torch::nn::Module {
  torch::nn::EmbeddingBag input{nullptr};
  torch::Tensor hidden_bias;
  torch::nn::Linear output{nullptr};
  torch::Device device;
  bool sparse_input;
  bool bf16;
  double lr;
  // Adam on every parameter (embedding_grad=dense) or on all but the input table, which then
  // has SparseAdam's state: its two moments and the step count.
  std::unique_ptr<torch::optim::Adam> adam;
  torch::Tensor exp_avg, exp_avg_sq;
  int64_t sparse_step = 0;
  // The current batch, reused so that building one allocates nothing.
  std::vector<int64_t> indices, offsets, label_index;
  std::vector<float> weights, label_weight;

  Model(const NetworkShape& s, const Network& init, torch::Device device_, float lr_, bool sparse,
        bool bf16_)
      : device(device_), sparse_input(sparse), bf16(bf16_), lr(lr_) {
    input = register_module(
        "input", torch::nn::EmbeddingBag(torch::nn::EmbeddingBagOptions(s.input_dim, s.hidden_dim)
                                             .mode(torch::kSum)
                                             .sparse(sparse)));
    hidden_bias = register_parameter("hidden_bias", torch::zeros({s.hidden_dim}));
    output = register_module("output", torch::nn::Linear(s.hidden_dim, s.output_dim));
    torch::NoGradGuard no_grad;
    input->weight.copy_(Wrap(init.input.w.data(), {s.input_dim, s.hidden_dim}));
    hidden_bias.copy_(Wrap(init.input.bias.data(), {s.hidden_dim}));
    output->weight.copy_(Wrap(init.output.w.data(), {s.output_dim, s.hidden_dim}));
    output->bias.copy_(Wrap(init.output.bias.data(), {s.output_dim}));
    to(device);
    std::vector<torch::Tensor> dense_parameters = parameters();
    if (sparse) {
      dense_parameters = {hidden_bias, output->weight, output->bias};
      exp_avg = torch::zeros_like(input->weight);
      exp_avg_sq = torch::zeros_like(input->weight);
    }
    adam = std::make_unique<torch::optim::Adam>(
        dense_parameters, torch::optim::AdamOptions(lr).betas({kBeta1, kBeta2}).eps(kEps));
  }

  void ZeroGrad() {
    adam->zero_grad();
    if (sparse_input) input->weight.mutable_grad() = torch::Tensor();  // a sparse grad would grow
  }

  void Step(double rate) {
    lr = rate;
    for (auto& group : adam->param_groups())
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(rate);
    adam->step();
    if (sparse_input) SparseAdamStep();
  }

  // torch.optim.SparseAdam (PyTorch 1.13, torch/optim/_functional.py: sparse_adam), which
  // LibTorch's C++ API lacks: the moments and weights change only at the rows the coalesced
  // gradient holds; step_size = lr * sqrt(1 - beta2^t) / (1 - beta1^t), denom = sqrt(v) + eps.
  void SparseAdamStep() {
    torch::NoGradGuard no_grad;
    const torch::Tensor& grad_tensor = input->weight.grad();
    if (!grad_tensor.defined()) return;
    ++sparse_step;
    const torch::Tensor grad = grad_tensor.coalesce();
    const torch::Tensor rows = grad._indices()[0];
    const torch::Tensor values = grad._values();
    if (values.numel() == 0) return;
    // old <- b * old + (1 - b) * new, written as old += (1 - b) * (new - old).
    const torch::Tensor old_exp_avg = exp_avg.index_select(0, rows);
    torch::Tensor exp_avg_update = values.sub(old_exp_avg).mul_(1 - kBeta1);
    exp_avg.index_add_(0, rows, exp_avg_update);
    const torch::Tensor old_exp_avg_sq = exp_avg_sq.index_select(0, rows);
    torch::Tensor exp_avg_sq_update = values.pow(2).sub_(old_exp_avg_sq).mul_(1 - kBeta2);
    exp_avg_sq.index_add_(0, rows, exp_avg_sq_update);
    torch::Tensor numer = exp_avg_update.add_(old_exp_avg);
    exp_avg_sq_update.add_(old_exp_avg_sq);
    const torch::Tensor denom = exp_avg_sq_update.sqrt_().add_(kEps);
    const double bias_correction1 = 1 - std::pow(kBeta1, static_cast<double>(sparse_step));
    const double bias_correction2 = 1 - std::pow(kBeta2, static_cast<double>(sparse_step));
    const double step_size = lr * std::sqrt(bias_correction2) / bias_correction1;
    input->weight.index_add_(0, rows, numer.div_(denom).mul_(-step_size));
  }

  void Gather(const Dataset& data, std::span<const uint32_t> rows) {
    indices.clear();
    offsets.clear();
    weights.clear();
    for (uint32_t r : rows) {
      const SparseRow row = data.row(r);
      offsets.push_back(static_cast<int64_t>(indices.size()));
      indices.insert(indices.end(), row.features.begin(), row.features.end());
      weights.insert(weights.end(), row.values.begin(), row.values.end());
    }
  }

  // fp32 logits; with bf16, the layers run under autocast and the logits are cast back, as a
  // careful user computes a softmax over tens of thousands of outputs.
  torch::Tensor Logits() {
    const CpuAutocast autocast(bf16);
    return LayersForward().to(torch::kFloat32);
  }

  torch::Tensor LayersForward() {
    auto idx =
        torch::from_blob(indices.data(), {static_cast<int64_t>(indices.size())}, torch::kInt64);
    auto off =
        torch::from_blob(offsets.data(), {static_cast<int64_t>(offsets.size())}, torch::kInt64);
    auto w =
        torch::from_blob(weights.data(), {static_cast<int64_t>(weights.size())}, torch::kFloat32);
    torch::Tensor hidden =
        torch::relu(input->forward(idx.to(device), off.to(device), w.to(device)) + hidden_bias);
    return output->forward(hidden);
  }

  // Summed softmax cross-entropy, target 1/k on each of a row's k labels.
  torch::Tensor Loss(const torch::Tensor& logits, const Dataset& data,
                     std::span<const uint32_t> rows) {
    label_index.clear();
    label_weight.clear();
    const int64_t outputs = logits.size(1);
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::span<const uint32_t> labels = data.labels(rows[i]);
      for (uint32_t l : labels) {
        label_index.push_back(static_cast<int64_t>(i) * outputs + l);
        label_weight.push_back(1.0f / static_cast<float>(labels.size()));
      }
    }
    const auto n = static_cast<int64_t>(label_index.size());
    auto index = torch::from_blob(label_index.data(), {n}, torch::kInt64).to(device);
    auto weight = torch::from_blob(label_weight.data(), {n}, torch::kFloat32).to(device);
    return -(torch::log_softmax(logits, 1).view({-1}).index_select(0, index) * weight).sum();
  }
};

TorchLearner::TorchLearner(const std::string& spec, const DataShape& shape,
                           const TrainOptions& options)
    : spec_(DenseSpec::Parse(spec, kTorchFamily)),
      options_(WithDefaults(options)),
      shape_{shape.features, spec_.hidden, shape.labels} {
  if (shape.features == 0 || shape.labels == 0)
    throw ConfigError("the training data has no features or labels");
  if (spec_.device == "cuda" && !torch::cuda::is_available()) {
    throw ConfigError(
        "torch:device=cuda needs a LibTorch built with CUDA and a GPU; this one has none");
  }
  KeepFreedMemory();
  torch::set_num_threads(options_.threads);
  openblas_set_num_threads(options_.threads);
  if (spec_.precision == "bf16") {
    RequireNativeBf16(CpuHasNativeBf16(), spec_.Canonical());
    if (!at::hasMKLDNN()) {
      throw ConfigError(spec_.Canonical() +
                        ": this LibTorch has no oneDNN (MKL-DNN), which runs its bf16 products");
    }
  }
  torch::manual_seed(options_.seed);
  const Network init(shape_, options_.seed);
  model_ = std::make_unique<Model>(shape_, init, torch::Device(spec_.device), options_.lr,
                                   spec_.sparse_input_update, spec_.precision == "bf16");
}

TorchLearner::~TorchLearner() = default;

TrainSettings TorchLearner::settings() const {
  return {
      options_.batch, options_.lr, options_.epochs,
      spec_.sparse_input_update
          ? "SparseAdam on the EmbeddingBag (touched rows) + torch::optim::Adam on the rest; " +
                ScheduleText(options_)
          : "adam, dense: every weight every step (torch::optim::Adam); " + ScheduleText(options_),
      spec_.precision == "bf16"
          ? "bf16 autocast: products in bf16 (oneDNN), weights, optimizer and loss in fp32"
          : "fp32"};
}

void TorchLearner::Train(const Dataset& train, const PausePlan& plan) {
  if (train.num_features > shape_.input_dim || train.num_labels > shape_.output_dim) {
    throw ConfigError("training data is wider than the model");
  }
  for (uint32_t e = 0; e < options_.epochs; ++e) {
    UseThreads(options_.threads);  // a pause (evaluation, latency) may have changed them
    model_->train();
    const bool go_on = RunEpoch(train, options_.seed, ++epoch_, options_.batch, plan, e,
                                [&](std::span<const uint32_t> rows) {
                                  model_->Gather(train, rows);
                                  torch::Tensor loss = model_->Loss(model_->Logits(), train, rows);
                                  model_->ZeroGrad();
                                  loss.backward();
                                  model_->Step(ScheduledLr(options_, samples_trained_));
                                  samples_trained_ += rows.size();
                                  return loss.item<double>();
                                });
    if (!go_on) break;
  }
}

void TorchLearner::UseThreads(int threads) const {
  if (at::get_num_threads() != threads) torch::set_num_threads(threads);
  openblas_set_num_threads(threads);  // LibTorch's mm calls OpenBLAS's sgemm_
}

TopK TorchLearner::PredictOne(const Dataset& data, size_t row, uint32_t k) const {
  UseThreads(1);  // a request on one thread, like the other engines' PredictOne
  const uint32_t one = static_cast<uint32_t>(row);
  return Predict(TakeRows(data, std::span(&one, 1)), k);
}

TopK TorchLearner::Predict(const Dataset& data, uint32_t k) const {
  if (data.num_features > shape_.input_dim) throw ConfigError("data is wider than the model");
  if (data.rows() > 1) UseThreads(options_.threads);
  torch::NoGradGuard no_grad;
  model_->eval();
  TopK top;
  top.k = k;
  top.ids.resize(data.rows() * k);
  top.scores.resize(data.rows() * k);
  const size_t block = std::clamp<size_t>((size_t{16} << 20) / shape_.output_dim, 1, 1024);
  std::vector<uint32_t> rows;
  for (size_t first = 0; first < data.rows(); first += block) {
    rows.clear();
    for (size_t r = first; r < std::min(data.rows(), first + block); ++r)
      rows.push_back(static_cast<uint32_t>(r));
    model_->Gather(data, rows);
    const torch::Tensor scores = model_->Logits().to(torch::kCPU).contiguous();
    const float* s = scores.data_ptr<float>();
    const auto count = static_cast<int64_t>(rows.size());
#pragma omp parallel for num_threads(options_.threads) schedule(static)
    for (int64_t i = 0; i < count; ++i) {
      const size_t r = first + static_cast<size_t>(i);
      SelectTopK({s + i * shape_.output_dim, shape_.output_dim}, {}, k, &top.ids[r * k],
                 &top.scores[r * k]);
    }
  }
  return top;
}

Network TorchLearner::ToNetwork() const {
  Network net(shape_, options_.seed);
  auto copy = [](const torch::Tensor& t, FloatVector& dst) {
    const torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    std::copy_n(c.data_ptr<float>(), dst.size(), dst.begin());
  };
  copy(model_->input->weight, net.input.w);
  copy(model_->hidden_bias, net.input.bias);
  copy(model_->output->weight, net.output.w);
  copy(model_->output->bias, net.output.bias);
  return net;
}

void TorchLearner::Save(const std::string& path) const { SaveModel(path, spec(), {}, ToNetwork()); }

size_t TorchLearner::model_bytes() const {
  size_t weights = 0;
  for (const torch::Tensor& p : model_->parameters()) weights += static_cast<size_t>(p.numel());
  return weights * 3 * sizeof(float);  // weights and Adam's two moments
}

std::map<std::string, std::string> TorchLearner::context() const {
  std::map<std::string, std::string> c = BlasContext();
  c["torch_version"] = TORCH_VERSION;
  c["torch_blas"] = TorchBlasInfo();
  c["torch_intra_op_threads"] = std::to_string(at::get_num_threads());
  c["torch_inter_op_threads"] = std::to_string(at::get_num_interop_threads());
  c["torch_device"] = spec_.device;
  c["torch_mkldnn"] = at::hasMKLDNN() ? "yes" : "no";
  return c;
}

}  // namespace sparsebench
