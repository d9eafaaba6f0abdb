#include "engine/row_gradients.h"

#include <algorithm>

#include "engine/aligned.h"
#include "engine/vector_ops.h"

namespace sparsebench {

void RowGradients::Group(std::span<const std::vector<Contribution>* const> per_thread) {
  if (++batch_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0u);
    batch_ = 1;
  }
  rows_.clear();
  offsets_.assign(1, 0);
  for (const auto* list : per_thread) {
    for (const Contribution& c : *list) {
      if (stamp_[c.row] != batch_) {
        stamp_[c.row] = batch_;
        slot_of_row_[c.row] = static_cast<uint32_t>(rows_.size());
        rows_.push_back(c.row);
        offsets_.push_back(0);
      }
      ++offsets_[slot_of_row_[c.row] + 1];
    }
  }
  for (size_t i = 1; i < offsets_.size(); ++i) offsets_[i] += offsets_[i - 1];
  entries_.resize(offsets_.back());
  std::vector<uint32_t> next(offsets_.begin(), offsets_.end() - 1);
  for (const auto* list : per_thread) {
    for (const Contribution& c : *list) entries_[next[slot_of_row_[c.row]]++] = {c.slot, c.coeff};
  }
}

void RowGradients::ApplyAdam(Parameters& params, const float* vectors, bool row_bias,
                             const AdamStep& step, int threads) const {
  const uint32_t dim = params.dim;
  const auto unique = static_cast<int64_t>(rows_.size());
#pragma omp parallel num_threads(threads)
  {
    FloatVector grad(dim);
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < unique; ++i) {
      std::fill(grad.begin(), grad.end(), 0.0f);
      float bias_grad = 0;
      for (uint32_t e = offsets_[i]; e < offsets_[i + 1]; ++e) {
        Axpy(entries_[e].coeff, vectors + size_t{entries_[e].slot} * dim, grad.data(), dim);
        bias_grad += entries_[e].coeff;
      }
      const uint32_t r = rows_[static_cast<size_t>(i)];
      const size_t at = size_t{r} * dim;
      if (i + 2 < unique) {
        const size_t next = size_t{rows_[static_cast<size_t>(i) + 2]} * dim;
        PrefetchRow(params.w.data() + next, dim * sizeof(float));
        PrefetchRow(params.m.data() + next, dim * sizeof(float));
        PrefetchRow(params.v.data() + next, dim * sizeof(float));
      }
      step.Apply(grad.data(), params.w.data() + at, params.m.data() + at, params.v.data() + at, dim);
      if (row_bias) step.Apply(&bias_grad, &params.bias[r], &params.bias_m[r], &params.bias_v[r], 1);
    }
  }
}

}  // namespace sparsebench
