#include "engine/row_gradients.h"

#include <algorithm>

#include "engine/aligned.h"
#include "engine/vector_ops.h"

namespace sparsebench {

void RowGradients::Group(std::span<const std::vector<Contribution>* const> per_thread) {
  rows_.clear();
  for (const auto* list : per_thread) {
    for (const Contribution& c : *list) {
      if (count_[c.row]++ == 0) rows_.push_back(c.row);
    }
  }
  SortRows();
  offsets_.resize(rows_.size() + 1);
  offsets_[0] = 0;
  for (size_t i = 0; i < rows_.size(); ++i) {
    const uint32_t r = rows_[i];
    start_[r] = offsets_[i];
    offsets_[i + 1] = offsets_[i] + count_[r];
    count_[r] = 0;
  }
  entries_.resize(offsets_.back());
  for (const auto* list : per_thread) {
    for (const Contribution& c : *list) entries_[start_[c.row]++] = {c.slot, c.coeff};
  }
}

// Few rows: sort them; many: collect them by scanning the counts, which is cheaper.
void RowGradients::SortRows() {
  if (rows_.size() * 32 < count_.size()) {
    std::sort(rows_.begin(), rows_.end());
    return;
  }
  rows_.clear();
  for (uint32_t r = 0; r < count_.size(); ++r) {
    if (count_[r] != 0) rows_.push_back(r);
  }
}

void RowGradients::ApplyAdam(Parameters& params, const float* vectors, bool row_bias,
                             const AdamStep& step, int threads) const {
  const uint32_t dim = params.dim;
  const bool bf16 = params.bf16_moments();
  const auto unique = static_cast<int64_t>(rows_.size());
#pragma omp parallel num_threads(threads)
  {
    FloatVector grad(dim);
#pragma omp for schedule(static)
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
        if (bf16) {
          PrefetchBytes(params.m16.data() + next, dim * sizeof(uint16_t));
          PrefetchBytes(params.v16.data() + next, dim * sizeof(uint16_t));
        } else {
          PrefetchRow(params.m.data() + next, dim * sizeof(float));
          PrefetchRow(params.v.data() + next, dim * sizeof(float));
        }
      }
      if (bf16) {
        step.Apply(grad.data(), params.w.data() + at, params.m16.data() + at, params.v16.data() + at, dim);
      } else {
        step.Apply(grad.data(), params.w.data() + at, params.m.data() + at, params.v.data() + at, dim);
      }
      if (row_bias) step.Apply(&bias_grad, &params.bias[r], &params.bias_m[r], &params.bias_v[r], 1);
    }
  }
}

}  // namespace sparsebench
