#include "engine/train/output_batch.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "engine/common/vector_ops.h"

namespace sparsebench {

OutputBatch::OutputBatch(uint32_t rows, uint32_t parts) : rows_(rows, parts) {}

void OutputBatch::Forward(std::span<const std::vector<Contribution>* const> lists,
                          std::span<const uint32_t> active_counts,
                          std::span<const uint32_t> label_counts, const Parameters& output,
                          const float* hidden, int threads, float* losses) {
  assert(active_counts.size() == label_counts.size());
  slots_ = active_counts.size();
  slot_begin_.resize(slots_ + 1);
  slot_begin_[0] = 0;
  for (size_t s = 0; s < slots_; ++s) slot_begin_[s + 1] = slot_begin_[s] + active_counts[s];
  rows_.Group(lists);
  assert(rows_.entries() == slot_begin_[slots_]);
  positions_.resize(rows_.entries());
  values_.resize(rows_.entries());
  const auto entries = static_cast<int64_t>(rows_.entries());
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t e = 0; e < entries; ++e) {
    const auto at = static_cast<size_t>(e);
    positions_[at] = slot_begin_[rows_.slot_of(at)] + static_cast<uint32_t>(rows_.coeff_of(at));
  }
  rows_.Score(output, hidden, positions_.data(), values_.data(), threads);
  const auto count = static_cast<int64_t>(slots_);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t s = 0; s < count; ++s) {
    const auto slot = static_cast<size_t>(s);
    losses[slot] =
        SlotSoftmax(std::span<float>(values_).subspan(slot_begin_[slot], active_counts[slot]),
                    label_counts[slot]);
  }
  // Back into row order, so the backward pass reads them in sequence.
  coeffs_.resize(rows_.entries());
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t e = 0; e < entries; ++e) {
    coeffs_[static_cast<size_t>(e)] = values_[positions_[static_cast<size_t>(e)]];
  }
}

float OutputBatch::SlotSoftmax(std::span<float> logits, uint32_t labels) {
  if (logits.empty()) return 0;
  assert(labels <= logits.size());
  float max_logit = -INFINITY;
  for (float z : logits) max_logit = std::max(max_logit, z);
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (size_t a = 0; a < logits.size(); ++a) sum += logits[a] = Exp(logits[a] - max_logit);
  const float inv_sum = 1.0f / sum;
#pragma omp simd
  for (size_t a = 0; a < logits.size(); ++a) logits[a] *= inv_sum;
  const float target = labels == 0 ? 0.0f : 1.0f / static_cast<float>(labels);
  float loss = 0;
  for (uint32_t a = 0; a < labels; ++a) {
    loss -= target * std::log(std::max(logits[a], 1e-30f));
    logits[a] -= target;
  }
  return loss;
}

void OutputBatch::Backward(Parameters& output, const float* hidden, const AdamStep& step,
                           int threads, float* hidden_grad) {
  const uint32_t dim = output.dim;
  const size_t chunk_floats = slots_ * dim;
  chunk_grads_.resize(RowGradients::kChunks * chunk_floats);
  rows_.ApplyAdamBackprop(output, hidden, coeffs_.data(), slots_, chunk_grads_.data(), step,
                          threads);
  const auto count = static_cast<int64_t>(slots_);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t s = 0; s < count; ++s) {
    const size_t at = static_cast<size_t>(s) * dim;
    float* grad = hidden_grad + at;
    std::copy_n(chunk_grads_.data() + at, dim, grad);
    for (uint32_t c = 1; c < RowGradients::kChunks; ++c)
      Axpy(1.0f, chunk_grads_.data() + c * chunk_floats + at, grad, dim);
    for (uint32_t j = 0; j < dim; ++j) {
      if (hidden[at + j] <= 0.0f) grad[j] = 0.0f;
    }
  }
}

}  // namespace sparsebench
