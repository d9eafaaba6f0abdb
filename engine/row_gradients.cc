#include "engine/row_gradients.h"

#include <omp.h>

#include <algorithm>
#include <cassert>

#include "engine/aligned.h"
#include "engine/vector_ops.h"

namespace sparsebench {

RowGradients::RowGradients(uint32_t rows, uint32_t parts)
    : parts_(std::max(1u, parts)),
      scale_(rows == 0 ? 0 : (uint64_t{parts_} << 32) / rows),
      count_(rows, 0),
      start_(rows, 0),
      rows_(rows),
      offsets_(size_t{rows} + 1),
      found_(parts_),
      range_entries_(parts_) {}

// The smallest row r with PartOf(r) >= part.
uint32_t RowGradients::FirstRowOf(uint32_t part) const {
  const auto rows = static_cast<uint32_t>(count_.size());
  if (part >= parts_ || scale_ == 0) return rows;
  const uint64_t first = ((uint64_t{part} << 32) + scale_ - 1) / scale_;
  return static_cast<uint32_t>(std::min<uint64_t>(first, rows));
}

void RowGradients::Group(std::span<const std::vector<Contribution>* const> lists) {
  size_t total = 0;
  for (const auto* list : lists) total += list->size();
  entries_.resize(total);
  for (uint32_t p = 0; p < parts_; ++p) found_[p].reserve(FirstRowOf(p + 1) - FirstRowOf(p));
  const auto count = static_cast<int64_t>(parts_);
#pragma omp parallel num_threads(static_cast <int>(parts_))
  {
#pragma omp for schedule(static)
    for (int64_t p = 0; p < count; ++p) {
      const auto part = static_cast<uint32_t>(p);
      CountPart(lists, part, found_[part]);
      range_entries_[part] = 0;
      for (uint32_t r : found_[part]) range_entries_[part] += count_[r];
    }
#pragma omp for schedule(static)
    for (int64_t p = 0; p < count; ++p) {
      const auto part = static_cast<uint32_t>(p);
      size_t row_at = 0, entry_at = 0;
      for (uint32_t q = 0; q < part; ++q) row_at += found_[q].size(), entry_at += range_entries_[q];
      PlacePart(lists, part, found_[part], row_at, static_cast<uint32_t>(entry_at));
    }
  }
  unique_ = 0;
  for (const auto& found : found_) unique_ += found.size();
  offsets_[0] = 0;
}

// Few rows: sort them; many: collect them by scanning the counts, which is cheaper.
void RowGradients::CountPart(std::span<const std::vector<Contribution>* const> lists, uint32_t part,
                             std::vector<uint32_t>& found) {
  found.clear();
  for (size_t i = part; i < lists.size(); i += parts_) {
    for (const Contribution& c : *lists[i]) {
      assert(PartOf(c.row) == part);
      if (count_[c.row]++ == 0) found.push_back(c.row);
    }
  }
  const uint32_t lo = FirstRowOf(part), hi = FirstRowOf(part + 1);
  if (found.size() * 32 < hi - lo) {
    std::sort(found.begin(), found.end());
    return;
  }
  found.clear();
  for (uint32_t r = lo; r < hi; ++r) {
    if (count_[r] != 0) found.push_back(r);
  }
}

void RowGradients::PlacePart(std::span<const std::vector<Contribution>* const> lists, uint32_t part,
                             std::span<const uint32_t> found, size_t row_at, uint32_t entry_at) {
  for (size_t i = 0; i < found.size(); ++i) {
    const uint32_t r = found[i];
    rows_[row_at + i] = r;
    start_[r] = entry_at;
    entry_at += count_[r];
    offsets_[row_at + i + 1] = entry_at;
    count_[r] = 0;
  }
  for (size_t i = part; i < lists.size(); i += parts_) {
    for (const Contribution& c : *lists[i]) entries_[start_[c.row]++] = {c.slot, c.coeff};
  }
}

namespace {

constexpr int64_t kAhead = 8;  // rows whose weights and moments are on their way

// Row r's weights and moments, and with row_bias its bias and the bias's moments, fetched
// ahead of its update: at hundreds of thousands of rows none of them is in cache.
[[gnu::always_inline]] inline void Prefetch(const Parameters& params, uint32_t r, bool row_bias) {
  const size_t dim = params.dim, at = size_t{r} * dim;
  if (params.bf16_weights()) {
    PrefetchBytesL2(params.w16.data() + at, dim * sizeof(uint16_t));
  } else {
    PrefetchBytesL2(params.w.data() + at, dim * sizeof(float));
  }
  if (params.bf16_moments()) {
    PrefetchBytesL2(params.m16.data() + at, dim * sizeof(uint16_t));
    PrefetchBytesL2(params.v16.data() + at, dim * sizeof(uint16_t));
  } else {
    PrefetchBytesL2(params.m.data() + at, dim * sizeof(float));
    PrefetchBytesL2(params.v.data() + at, dim * sizeof(float));
  }
  if (row_bias) {
    PrefetchBytesL2(params.bias.data() + r, sizeof(float));
    PrefetchBytesL2(params.bias_m.data() + r, sizeof(float));
    PrefetchBytesL2(params.bias_v.data() + r, sizeof(float));
  }
}

}  // namespace

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
      const Entry& first = entries_[offsets_[i]];  // a listed row has at least one entry
      Scale(first.coeff, vectors + size_t{first.slot} * dim, grad.data(), dim);
      float bias_grad = first.coeff;
      for (uint32_t e = offsets_[i] + 1; e < offsets_[i + 1]; ++e) {
        Axpy(entries_[e].coeff, vectors + size_t{entries_[e].slot} * dim, grad.data(), dim);
        bias_grad += entries_[e].coeff;
      }
      const uint32_t r = rows_[static_cast<size_t>(i)];
      const size_t at = size_t{r} * dim;
      if (i + kAhead < unique) Prefetch(params, rows_[static_cast<size_t>(i + kAhead)], row_bias);
      if (params.bf16_weights()) {
        step.Apply(grad.data(), params.w16.data() + at, params.m16.data() + at,
                   params.v16.data() + at, dim,
                   step.noise_seed + static_cast<uint32_t>(at) * 0x9e3779b9u);
      } else if (bf16) {
        step.Apply(grad.data(), params.w.data() + at, params.m16.data() + at, params.v16.data() + at, dim);
      } else {
        step.Apply(grad.data(), params.w.data() + at, params.m.data() + at, params.v.data() + at, dim);
      }
      if (row_bias) step.ApplyOne(bias_grad, params.bias[r], params.bias_m[r], params.bias_v[r]);
    }
  }
}

}  // namespace sparsebench
