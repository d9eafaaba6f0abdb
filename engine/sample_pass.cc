#include "engine/sample_pass.h"

#include <algorithm>
#include <cmath>

#include "engine/vector_ops.h"

namespace sparsebench {
namespace {

bool IsLabel(const SparseRow& sample, std::span<const uint32_t> active, size_t a, bool labels_first) {
  if (labels_first) return a < sample.labels.size();
  return std::find(sample.labels.begin(), sample.labels.end(), active[a]) != sample.labels.end();
}

}  // namespace

float ForwardBackward(const Network& net, const SparseRow& sample, std::span<const uint32_t> active,
                      bool labels_first, const float* hidden, float* hidden_grad,
                      std::vector<float>& output_grads) {
  const uint32_t h_dim = net.shape.hidden_dim;
  std::vector<float>& p = output_grads;
  p.resize(active.size());
  float max_logit = -INFINITY;
  constexpr size_t kAhead = 4;  // rows are random: fetch a few ahead of the dot products
  const size_t row_bytes = h_dim * sizeof(float);
  for (size_t a = 0; a < std::min(kAhead, active.size()); ++a) PrefetchRow(net.output.row(active[a]), row_bytes);
  for (size_t a = 0; a < active.size(); ++a) {
    if (a + kAhead < active.size()) PrefetchRow(net.output.row(active[a + kAhead]), row_bytes);
    p[a] = net.Logit(active[a], hidden);
    max_logit = std::max(max_logit, p[a]);
  }
  double sum = 0;
  for (float& x : p) sum += x = std::exp(x - max_logit);
  const auto inv_sum = static_cast<float>(1.0 / sum);
  const float target = 1.0f / static_cast<float>(sample.labels.size());
  float loss = 0;
  std::fill(hidden_grad, hidden_grad + h_dim, 0.0f);
  for (size_t a = 0; a < active.size(); ++a) {
    const float prob = p[a] * inv_sum;
    const bool label = IsLabel(sample, active, a, labels_first);
    if (label) loss -= target * std::log(std::max(prob, 1e-30f));
    p[a] = prob - (label ? target : 0.0f);
    Axpy(p[a], net.output.row(active[a]), hidden_grad, h_dim);
  }
  for (uint32_t j = 0; j < h_dim; ++j) {
    if (hidden[j] <= 0.0f) hidden_grad[j] = 0.0f;
  }
  return loss;
}

}  // namespace sparsebench
