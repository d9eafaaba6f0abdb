#include "engine/row_gradients.h"

#include <omp.h>

#include <algorithm>

#include "engine/aligned.h"
#include "engine/vector_ops.h"

namespace sparsebench {

void RowGradients::Group(std::span<const std::vector<Contribution>* const> per_thread, int threads) {
  const auto rows = static_cast<uint32_t>(count_.size());
  const auto parts = static_cast<size_t>(std::max(1, threads));
  size_t total = 0;
  for (const auto* list : per_thread) total += list->size();
  entries_.resize(total);
  found_.resize(parts);
  range_entries_.assign(parts, 0);
  auto range = [&](size_t part, size_t end) { return static_cast<uint32_t>(uint64_t{rows} * (part + end) / parts); };
  for (size_t p = 0; p < parts; ++p) found_[p].reserve(range(p, 1) - range(p, 0));
  const auto count = static_cast<int64_t>(parts);
#pragma omp parallel num_threads(static_cast<int>(parts))
  {
#pragma omp for schedule(static)
    for (int64_t p = 0; p < count; ++p) {
      const auto part = static_cast<size_t>(p);
      CountRange(per_thread, range(part, 0), range(part, 1), found_[part]);
      for (uint32_t r : found_[part]) range_entries_[part] += count_[r];
    }
#pragma omp for schedule(static)
    for (int64_t p = 0; p < count; ++p) {
      const auto part = static_cast<size_t>(p);
      size_t row_at = 0, entry_at = 0;
      for (size_t q = 0; q < part; ++q) row_at += found_[q].size(), entry_at += range_entries_[q];
      PlaceRange(per_thread, range(part, 0), range(part, 1), found_[part], row_at, static_cast<uint32_t>(entry_at));
    }
  }
  unique_ = 0;
  for (const auto& found : found_) unique_ += found.size();
  offsets_[0] = 0;
}

// Few rows: sort them; many: collect them by scanning the counts, which is cheaper.
void RowGradients::CountRange(std::span<const std::vector<Contribution>* const> per_thread,
                              uint32_t lo, uint32_t hi, std::vector<uint32_t>& found) {
  found.clear();
  for (const auto* list : per_thread) {
    for (const Contribution& c : *list) {
      if (c.row >= lo && c.row < hi && count_[c.row]++ == 0) found.push_back(c.row);
    }
  }
  if (found.size() * 32 < hi - lo) {
    std::sort(found.begin(), found.end());
    return;
  }
  found.clear();
  for (uint32_t r = lo; r < hi; ++r) {
    if (count_[r] != 0) found.push_back(r);
  }
}

void RowGradients::PlaceRange(std::span<const std::vector<Contribution>* const> per_thread,
                              uint32_t lo, uint32_t hi, std::span<const uint32_t> found,
                              size_t row_at, uint32_t entry_at) {
  for (size_t i = 0; i < found.size(); ++i) {
    const uint32_t r = found[i];
    rows_[row_at + i] = r;
    start_[r] = entry_at;
    entry_at += count_[r];
    offsets_[row_at + i + 1] = entry_at;
    count_[r] = 0;
  }
  for (const auto* list : per_thread) {
    for (const Contribution& c : *list) {
      if (c.row >= lo && c.row < hi) entries_[start_[c.row]++] = {c.slot, c.coeff};
    }
  }
}

void RowGradients::ApplyAdam(Parameters& params, const float* vectors, bool row_bias,
                             const AdamStep& step, int threads) const {
  const uint32_t dim = params.dim;
  const bool bf16 = params.bf16_moments();
  const auto unique = static_cast<int64_t>(unique_);
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
