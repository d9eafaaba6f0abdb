#include "engine/train/sample_pass.h"

#include <algorithm>
#include <cmath>

#include "engine/common/vector_ops.h"

namespace sparsebench {
namespace {

constexpr size_t kBlock = 16;  // neurons whose rows sit in L1 together
// Rows are random: each is fetched into L2 this many rows ahead of its dot product, and from
// there into L1 a few rows ahead.
constexpr size_t kFar = 32, kNear = 4;

bool IsLabel(const SparseRow& sample, std::span<const uint32_t> active, size_t a,
             bool labels_first) {
  if (labels_first) return a < sample.labels.size();
  return std::find(sample.labels.begin(), sample.labels.end(), active[a]) != sample.labels.end();
}

// One pass over the active rows with an online softmax: each block of rows is read from
// memory once, scored, and added to sum_a exp(z_a - max) * w_a while it is still in L1; the
// running sum is rescaled whenever the maximum grows. Then
//   dLoss/dhidden = (sum_a exp(z_a - max) w_a) / Z - sum_labels (1/k) w_label.
// `row(neuron)` gives the output weights as fp32 or bf16.
template <typename RowOf>
float ForwardBackwardOn(const Network& net, RowOf row_of, const SparseRow& sample,
                        std::span<const uint32_t> active, bool labels_first, const float* hidden,
                        float* hidden_grad, std::vector<float>& output_grads) {
  const uint32_t h_dim = net.shape.hidden_dim;
  const size_t n = active.size();
  const size_t row_bytes = h_dim * sizeof(*row_of(0));
  std::vector<float>& z = output_grads;
  z.resize(n);
  float* acc = hidden_grad;
  std::fill(acc, acc + h_dim, 0.0f);
  float max_logit = -INFINITY, sum = 0;
  float e[kBlock];
  const float* bias = net.output.bias.data();
  for (size_t a = 0; a < std::min(kFar, n); ++a) {
    PrefetchBytesL2(row_of(active[a]), row_bytes);
    PrefetchBytesL2(bias + active[a], sizeof(float));
  }
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t size = std::min(kBlock, n - begin);
    float block_max = -INFINITY;
    for (size_t i = 0; i < size; ++i) {
      const size_t a = begin + i;
      if (a + kFar < n) {
        PrefetchBytesL2(row_of(active[a + kFar]), row_bytes);
        PrefetchBytesL2(bias + active[a + kFar], sizeof(float));
      }
      if (a + kNear < n) PrefetchBytes(row_of(active[a + kNear]), row_bytes);
      z[a] = Dot(row_of(active[a]), hidden, h_dim) + bias[active[a]];
      block_max = std::max(block_max, z[a]);
    }
    if (block_max > max_logit) {
      const float scale = Exp(max_logit - block_max);  // ~0 for the first block
      sum *= scale;
      for (uint32_t j = 0; j < h_dim; ++j) acc[j] *= scale;
      max_logit = block_max;
    }
    const float* block_z = z.data() + begin;
#pragma omp simd reduction(+ : sum)
    for (size_t i = 0; i < size; ++i) sum += e[i] = Exp(block_z[i] - max_logit);
    for (size_t i = 0; i < size; ++i) Axpy(e[i], row_of(active[begin + i]), acc, h_dim);
  }
  const float inv_sum = 1.0f / sum;
  for (uint32_t j = 0; j < h_dim; ++j) acc[j] *= inv_sum;
#pragma omp simd
  for (size_t a = 0; a < n; ++a) z[a] = Exp(z[a] - max_logit) * inv_sum;
  const float target = 1.0f / static_cast<float>(sample.labels.size());
  float loss = 0;
  for (size_t a = 0; a < n; ++a) {
    if (!IsLabel(sample, active, a, labels_first)) continue;
    loss -= target * std::log(std::max(z[a], 1e-30f));
    z[a] -= target;
    Axpy(-target, row_of(active[a]), hidden_grad, h_dim);
  }
  for (uint32_t j = 0; j < h_dim; ++j) {
    if (hidden[j] <= 0.0f) hidden_grad[j] = 0.0f;
  }
  return loss;
}

}  // namespace

float ForwardBackward(const Network& net, const SparseRow& sample, std::span<const uint32_t> active,
                      bool labels_first, const float* hidden, float* hidden_grad,
                      std::vector<float>& output_grads) {
  const Parameters& out = net.output;
  if (out.bf16_weights()) {
    return ForwardBackwardOn(
        net, [&](uint32_t r) { return out.row16(r); }, sample, active, labels_first, hidden,
        hidden_grad, output_grads);
  }
  return ForwardBackwardOn(
      net, [&](uint32_t r) { return out.row(r); }, sample, active, labels_first, hidden,
      hidden_grad, output_grads);
}

}  // namespace sparsebench
