#include "baselines/blas_learner.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "baselines/blas_info.h"
#include "baselines/epoch_loop.h"
#include "baselines/families.h"
#include "engine/api/engine_error.h"
#include "engine/api/train_defaults.h"
#include "engine/common/vector_ops.h"
#include "engine/model/inference.h"
#include "engine/model/model_io.h"

namespace sparsebench {
namespace {

int Int(size_t n) { return static_cast<int>(n); }

// Adam over n weights, split in contiguous pieces across threads.
void ParallelAdam(const AdamStep& step, const float* grad, float* w, float* m, float* v, size_t n,
                  int threads) {
  constexpr size_t kPiece = 1 << 14;
  const auto pieces = static_cast<int64_t>((n + kPiece - 1) / kPiece);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t p = 0; p < pieces; ++p) {
    const size_t begin = static_cast<size_t>(p) * kPiece, count = std::min(kPiece, n - begin);
    step.Apply(grad + begin, w + begin, m + begin, v + begin, count);
  }
}

// sums[j] = sum over rows of m[i][j], threads taking slices of columns.
void ColumnSums(const float* m, size_t rows, size_t cols, float* sums, int threads) {
  constexpr size_t kSlice = 4096;
  const auto slices = static_cast<int64_t>((cols + kSlice - 1) / kSlice);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t s = 0; s < slices; ++s) {
    const size_t begin = static_cast<size_t>(s) * kSlice, width = std::min(kSlice, cols - begin);
    std::fill_n(sums + begin, width, 0.0f);
    for (size_t i = 0; i < rows; ++i) Axpy(1.0f, m + i * cols + begin, sums + begin, width);
  }
}

}  // namespace

BlasLearner::BlasLearner(const std::string& spec, const DataShape& shape,
                         const TrainOptions& options)
    : spec_(DenseSpec::Parse(spec, kBlasFamily)),
      options_(WithDefaults(options)),
      network_(NetworkShape{shape.features, spec_.hidden, shape.labels}, options.seed) {
  if (shape.features == 0 || shape.labels == 0)
    throw ConfigError("the training data has no features or labels");
  const size_t h = spec_.hidden;
  hidden_.resize(options_.batch * h);
  hidden_grad_.resize(options_.batch * h);
  AssignZeros(logits_, size_t{options_.batch} * shape.labels);
  AssignZeros(input_grad_, network_.input.w.size());
  AssignZeros(output_grad_, network_.output.w.size());
  output_bias_grad_.resize(shape.labels);
  hidden_bias_grad_.resize(h);
  if (spec_.sparse_input_update) row_stamp_.assign(shape.features, 0u);
}

TrainSettings BlasLearner::settings() const {
  return {
      options_.batch, options_.lr, options_.epochs,
      spec_.sparse_input_update
          ? "adam on the touched input rows (lazy) + adam on the output layer and hidden bias; " +
                ScheduleText(options_)
          : "adam, dense: every weight every step; " + ScheduleText(options_)};
}

void BlasLearner::Train(const Dataset& train, const PausePlan& plan) {
  if (train.num_features > network_.shape.input_dim ||
      train.num_labels > network_.shape.output_dim) {
    throw ConfigError("training data is wider than the model");
  }
  for (uint32_t e = 0; e < options_.epochs; ++e) {
    const GemmTotals before = gemm_;
    const bool go_on = RunEpoch(
        train, options_.seed, ++epoch_, options_.batch, plan, e,
        [&](std::span<const uint32_t> rows) { return TrainBatch(train, rows); },
        [&]() -> std::map<std::string, double> {
          const double seconds = gemm_.seconds - before.seconds;
          return {{"seconds_gemm", seconds},
                  {"gemm_gflops", (gemm_.flops - before.flops) / 1e9 / std::max(1e-9, seconds)}};
        });
    if (!go_on) break;
  }
}

double BlasLearner::TrainBatch(const Dataset& data, std::span<const uint32_t> rows) {
  Forward(data, rows);
  const double loss = LossGradient(data, rows);
  Backward(data, rows);
  Update(data, rows);
  return loss;
}

void BlasLearner::Forward(const Dataset& data, std::span<const uint32_t> rows) {
  const size_t h = network_.shape.hidden_dim, outputs = network_.shape.output_dim;
  const auto count = static_cast<int64_t>(rows.size());
#pragma omp parallel for num_threads(options_.threads) schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    const SparseRow row = data.row(rows[static_cast<size_t>(i)]);
    network_.Hidden(row.features, row.values, hidden_.data() + static_cast<size_t>(i) * h);
    std::copy(network_.output.bias.begin(), network_.output.bias.end(),
              logits_.begin() + i * static_cast<int64_t>(outputs));
  }
  Gemm(false, true, rows.size(), outputs, h, hidden_.data(), network_.output.w.data(), 1.0f,
       logits_.data());
}

// Turns each row of logits into dLoss/dlogit = softmax - target (1/k on each of k labels).
double BlasLearner::LossGradient(const Dataset& data, std::span<const uint32_t> rows) {
  const size_t outputs = network_.shape.output_dim;
  const auto count = static_cast<int64_t>(rows.size());
  double loss = 0;
#pragma omp parallel for num_threads(options_.threads) schedule(static) reduction(+ : loss)
  for (int64_t i = 0; i < count; ++i) {
    float* z = logits_.data() + static_cast<size_t>(i) * outputs;
    const float max_logit = *std::max_element(z, z + outputs);
    double sum = 0;
    for (size_t j = 0; j < outputs; ++j) sum += z[j] = std::exp(z[j] - max_logit);
    const auto inv_sum = static_cast<float>(1.0 / sum);
    for (size_t j = 0; j < outputs; ++j) z[j] *= inv_sum;
    const std::span<const uint32_t> labels = data.labels(rows[static_cast<size_t>(i)]);
    const float target = 1.0f / static_cast<float>(labels.size());
    for (uint32_t label : labels) {
      loss -= target * std::log(std::max(z[label], 1e-30f));
      z[label] -= target;
    }
  }
  return loss;
}

void BlasLearner::Backward(const Dataset& data, std::span<const uint32_t> rows) {
  const size_t h = network_.shape.hidden_dim, outputs = network_.shape.output_dim, b = rows.size();
  Gemm(true, false, outputs, h, b, logits_.data(), hidden_.data(), 0.0f, output_grad_.data());
  ColumnSums(logits_.data(), b, outputs, output_bias_grad_.data(), options_.threads);
  Gemm(false, false, b, h, outputs, logits_.data(), network_.output.w.data(), 0.0f,
       hidden_grad_.data());
  std::fill(hidden_bias_grad_.begin(), hidden_bias_grad_.end(), 0.0f);
  for (size_t i = 0; i < b; ++i) {
    float* g = hidden_grad_.data() + i * h;
    const float* a = hidden_.data() + i * h;
    for (size_t j = 0; j < h; ++j) g[j] = a[j] > 0.0f ? g[j] : 0.0f;
    Axpy(1.0f, g, hidden_bias_grad_.data(), h);
  }
  // Scatter into the input rows; threads own column slices, so no two write the same float.
  const int threads = options_.threads;
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num()),
                 parts = static_cast<size_t>(omp_get_num_threads());
    const size_t begin = h * t / parts, end = h * (t + 1) / parts;
    for (size_t i = 0; i < b; ++i) {
      const SparseRow row = data.row(rows[i]);
      const float* g = hidden_grad_.data() + i * h;
      for (size_t f = 0; f < row.features.size(); ++f) {
        float* dst = input_grad_.data() + size_t{row.features[f]} * h;
        for (size_t j = begin; j < end; ++j) dst[j] += row.values[f] * g[j];
      }
    }
  }
}

void BlasLearner::Update(const Dataset& data, std::span<const uint32_t> rows) {
  const AdamStep step(AdamConfig{.lr = ScheduledLr(options_, samples_trained_)}, ++step_);
  samples_trained_ += rows.size();
  const int threads = options_.threads;
  Parameters& in = network_.input;
  Parameters& out = network_.output;
  ParallelAdam(step, output_grad_.data(), out.w.data(), out.m.data(), out.v.data(), out.w.size(),
               threads);
  step.Apply(output_bias_grad_.data(), out.bias.data(), out.bias_m.data(), out.bias_v.data(),
             out.bias.size());
  const size_t h = network_.shape.hidden_dim;
  if (spec_.sparse_input_update) {
    // Lazy: Adam on the rows of the features in the batch only, with the global step count
    // for the bias correction, as the engine's trainer does (engine/train/row_gradients.cc).
    if (++stamp_ == 0) {
      std::fill(row_stamp_.begin(), row_stamp_.end(), 0u);
      stamp_ = 1;
    }
    touched_.clear();
    for (uint32_t r : rows) {
      for (uint32_t f : data.row(r).features) {
        if (row_stamp_[f] != stamp_) {
          row_stamp_[f] = stamp_;
          touched_.push_back(f);
        }
      }
    }
    const auto count = static_cast<int64_t>(touched_.size());
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < count; ++i) {
      const size_t at = size_t{touched_[static_cast<size_t>(i)]} * h;
      step.Apply(input_grad_.data() + at, in.w.data() + at, in.m.data() + at, in.v.data() + at, h);
      std::fill_n(input_grad_.data() + at, h, 0.0f);
    }
  } else {
    ParallelAdam(step, input_grad_.data(), in.w.data(), in.m.data(), in.v.data(), in.w.size(),
                 threads);
    for (uint32_t r : rows) {
      for (uint32_t f : data.row(r).features)
        std::fill_n(input_grad_.data() + size_t{f} * h, h, 0.0f);
    }
  }
  step.Apply(hidden_bias_grad_.data(), in.bias.data(), in.bias_m.data(), in.bias_v.data(),
             in.bias.size());
}

// OpenBLAS runs single-threaded inside our OpenMP threads, each computing a slice of C
// along its longer side: one thread pool, so OpenBLAS's spinning workers never compete
// with ours for the cores.
void BlasLearner::Gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, const float* a,
                       const float* b, float beta, float* c) {
  const auto start = std::chrono::steady_clock::now();
  const int lda = trans_a ? Int(m) : Int(k), ldb = trans_b ? Int(k) : Int(n), ldc = Int(n);
  const bool split_rows = m >= n;
  openblas_set_num_threads(1);  // a hook (evaluation) may have run OpenBLAS threaded since
#pragma omp parallel num_threads(options_.threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num()),
                 parts = static_cast<size_t>(omp_get_num_threads());
    const size_t length = split_rows ? m : n, begin = length * t / parts,
                 end = length * (t + 1) / parts;
    const float* a_part = split_rows ? a + (trans_a ? begin : begin * k) : a;
    const float* b_part = split_rows ? b : b + (trans_b ? begin * k : begin);
    float* c_part = c + (split_rows ? begin * n : begin);
    if (end > begin) {
      cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                  trans_b ? CblasTrans : CblasNoTrans, split_rows ? Int(end - begin) : Int(m),
                  split_rows ? Int(n) : Int(end - begin), Int(k), 1.0f, a_part, lda, b_part, ldb,
                  beta, c_part, ldc);
    }
  }
  gemm_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  gemm_.flops += 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

TopK BlasLearner::Predict(const Dataset& data, uint32_t k) const {
  if (data.num_features > network_.shape.input_dim)
    throw ConfigError("data is wider than the model");
  return PredictExact(network_, data, k, options_.threads);
}

TopK BlasLearner::PredictOne(const Dataset& data, size_t row, uint32_t k) const {
  return PredictRowExact(network_, data.row(row), k);
}

void BlasLearner::Save(const std::string& path) const { SaveModel(path, spec(), {}, network_); }

std::map<std::string, std::string> BlasLearner::context() const {
  std::map<std::string, std::string> c = BlasContext();
  c["omp_threads"] = std::to_string(options_.threads);
  c["blas_threads_in_training"] = "1 in each OpenMP thread (products split across them)";
  return c;
}

}  // namespace sparsebench
