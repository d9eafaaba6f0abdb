#include "engine/train/row_gradients.h"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <utility>

#include "engine/common/aligned.h"
#include "engine/common/vector_ops.h"

namespace sparsebench {

RowGradients::RowGradients(uint32_t rows, uint32_t parts)
    : rows_count_(rows),
      parts_(std::max(1u, parts)),
      scale_(rows == 0 ? 0 : (uint64_t{parts_} << 32) / rows),
      part_(parts_) {}

// The smallest row r with PartOf(r) >= part.
uint32_t RowGradients::FirstRowOf(uint32_t part) const {
  if (part >= parts_ || scale_ == 0) return rows_count_;
  const uint64_t first = ((uint64_t{part} << 32) + scale_ - 1) / scale_;
  return static_cast<uint32_t>(std::min<uint64_t>(first, rows_count_));
}

void RowGradients::Group(std::span<const std::vector<Contribution>* const> lists) {
  const auto count = static_cast<int64_t>(parts_);
#pragma omp parallel for num_threads(static_cast <int>(parts_)) schedule(static)
  for (int64_t p = 0; p < count; ++p) part_[p].rows = SortPart(lists, static_cast<uint32_t>(p));
  size_t total = 0;
  unique_ = 0;
  for (const PartBuffers& part : part_) total += part.sorted.size(), unique_ += part.rows;
  entries_.resize(total);
  rows_.resize(unique_);
  offsets_.resize(unique_ + 1);
  offsets_[unique_] = static_cast<uint32_t>(total);
#pragma omp parallel for num_threads(static_cast <int>(parts_)) schedule(static)
  for (int64_t p = 0; p < count; ++p) {
    size_t row_at = 0, entry_at = 0;
    for (int64_t q = 0; q < p; ++q) row_at += part_[q].rows, entry_at += part_[q].sorted.size();
    PlacePart(static_cast<uint32_t>(p), row_at, entry_at);
  }
}

namespace {

constexpr uint32_t kMaxDigitBits = 11;  // a pass's counts (2^11) stay in L1

// Visits the contributions of part `part`'s lists in order.
template <typename Visit>
void ForEachOfPart(std::span<const std::vector<Contribution>* const> lists, uint32_t part,
                   uint32_t parts, Visit visit) {
  for (size_t i = part; i < lists.size(); i += parts) {
    for (const Contribution& c : *lists[i]) visit(c);
  }
}

}  // namespace

// LSD radix sort on row - first row of the range: as many passes of at most kMaxDigitBits
// bits as the range needs, each stable, the first reading the lists themselves.
size_t RowGradients::SortPart(std::span<const std::vector<Contribution>* const> lists,
                              uint32_t part) {
  PartBuffers& buffers = part_[part];
  const uint32_t lo = FirstRowOf(part), span = FirstRowOf(part + 1) - lo;
  const auto bits = static_cast<uint32_t>(std::bit_width(span > 0 ? span - 1 : 0u));
  const uint32_t passes = std::max(1u, (bits + kMaxDigitBits - 1) / kMaxDigitBits);
  const uint32_t digit = (bits + passes - 1) / passes, mask = (1u << digit) - 1;
  buffers.counts.assign(size_t{passes} << digit, 0);
  size_t n = 0;
  ForEachOfPart(lists, part, parts_, [&](const Contribution& c) {
    assert(PartOf(c.row) == part);
    const uint32_t key = c.row - lo;
    for (uint32_t p = 0; p < passes; ++p)
      ++buffers.counts[(p << digit) + ((key >> (p * digit)) & mask)];
    ++n;
  });
  for (uint32_t p = 0; p < passes; ++p) {
    uint32_t* counts = buffers.counts.data() + (size_t{p} << digit);
    uint32_t at = 0;
    for (uint32_t d = 0; d <= mask; ++d) at += std::exchange(counts[d], at);
  }
  buffers.sorted.resize(n);
  buffers.spare.resize(n);
  // The last pass writes `sorted`.
  std::vector<Contribution>* into = passes % 2 ? &buffers.sorted : &buffers.spare;
  auto scatter = [&](const Contribution& c, uint32_t p) {
    const uint32_t d = ((c.row - lo) >> (p * digit)) & mask;
    (*into)[buffers.counts[(size_t{p} << digit) + d]++] = c;
  };
  ForEachOfPart(lists, part, parts_, [&](const Contribution& c) { scatter(c, 0); });
  for (uint32_t p = 1; p < passes; ++p) {
    std::vector<Contribution>* from = into;
    into = from == &buffers.sorted ? &buffers.spare : &buffers.sorted;
    for (const Contribution& c : *from) scatter(c, p);
  }
  size_t rows = 0;
  for (size_t i = 0; i < n; ++i)
    rows += i == 0 || buffers.sorted[i].row != buffers.sorted[i - 1].row;
  return rows;
}

void RowGradients::PlacePart(uint32_t part, size_t row_at, size_t entry_at) {
  const std::vector<Contribution>& sorted = part_[part].sorted;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || sorted[i].row != sorted[i - 1].row) {
      rows_[row_at] = sorted[i].row;
      offsets_[row_at++] = static_cast<uint32_t>(entry_at + i);
    }
    entries_[entry_at + i] = {sorted[i].slot, sorted[i].coeff};
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

// Adam on row r (and with row_bias its bias) from its summed gradient, in the row's storage.
void ApplyRow(Parameters& params, uint32_t r, const float* grad, float bias_grad, bool row_bias,
              const AdamStep& step) {
  const uint32_t dim = params.dim;
  const size_t at = size_t{r} * dim;
  if (params.bf16_weights()) {
    step.Apply(grad, params.w16.data() + at, params.m16.data() + at, params.v16.data() + at, dim,
               step.noise_seed + static_cast<uint32_t>(at) * 0x9e3779b9u);
  } else if (params.bf16_moments()) {
    step.Apply(grad, params.w.data() + at, params.m16.data() + at, params.v16.data() + at, dim);
  } else {
    step.Apply(grad, params.w.data() + at, params.m.data() + at, params.v.data() + at, dim);
  }
  if (row_bias) step.ApplyOne(bias_grad, params.bias[r], params.bias_m[r], params.bias_v[r]);
}

}  // namespace

void ApplyDenseAdam(Parameters& params, const float* coeffs, size_t slots, const float* vectors,
                    const AdamStep& step, int threads) {
  constexpr uint32_t kBlock = 16;  // rows whose coefficients of one slot share a cache line
  const uint32_t dim = params.dim, rows = params.rows;
  const auto blocks = static_cast<int64_t>((rows + kBlock - 1) / kBlock);
#pragma omp parallel num_threads(threads)
  {
    FloatVector grads(size_t{kBlock} * dim);
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      const auto first = static_cast<uint32_t>(b) * kBlock, count = std::min(kBlock, rows - first);
      std::fill(grads.begin(), grads.end(), 0.0f);
      float bias_grads[kBlock] = {};
      for (size_t slot = 0; slot < slots; ++slot) {
        const float* c = coeffs + slot * rows + first;
        for (uint32_t j = 0; j < count; ++j) {
          Axpy(c[j], vectors + slot * dim, grads.data() + size_t{j} * dim, dim);
          bias_grads[j] += c[j];
        }
      }
      for (uint32_t j = 0; j < count; ++j)
        ApplyRow(params, first + j, grads.data() + size_t{j} * dim, bias_grads[j], true, step);
    }
  }
}

void RowGradients::ApplyAdam(Parameters& params, const float* vectors, bool row_bias,
                             const AdamStep& step, int threads) const {
  const uint32_t dim = params.dim;
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
      if (i + kAhead < unique) Prefetch(params, rows_[static_cast<size_t>(i + kAhead)], row_bias);
      ApplyRow(params, rows_[static_cast<size_t>(i)], grad.data(), bias_grad, row_bias, step);
    }
  }
}

size_t RowGradients::FirstListedOfChunk(uint32_t chunk) const {
  const uint64_t first_row = uint64_t{rows_count_} * chunk / kChunks;
  const auto listed = rows_.begin() + static_cast<std::ptrdiff_t>(unique_);
  return static_cast<size_t>(std::lower_bound(rows_.begin(), listed, first_row) - rows_.begin());
}

namespace {

template <typename RowOf, typename Entry>
void ScoreRows(const Parameters& params, RowOf row_of, std::span<const uint32_t> rows,
               const uint32_t* offsets, const Entry* entries, const uint32_t* positions,
               const float* vectors, float* values, int threads) {
  const uint32_t dim = params.dim;
  const size_t row_bytes = dim * sizeof(*row_of(0));
  const auto count = static_cast<int64_t>(rows.size());
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    if (i + kAhead < count)
      PrefetchBytesL2(row_of(rows[static_cast<size_t>(i + kAhead)]), row_bytes);
    const uint32_t r = rows[static_cast<size_t>(i)];
    const auto* row = row_of(r);
    const float bias = params.bias[r];
    for (uint32_t e = offsets[i]; e < offsets[i + 1]; ++e)
      values[positions[e]] = Dot(row, vectors + size_t{entries[e].slot} * dim, dim) + bias;
  }
}

}  // namespace

void RowGradients::Score(const Parameters& params, const float* vectors, const uint32_t* positions,
                         float* values, int threads) const {
  const std::span<const uint32_t> rows(rows_.data(), unique_);
  if (params.bf16_weights()) {
    ScoreRows(
        params, [&](uint32_t r) { return params.row16(r); }, rows, offsets_.data(), entries_.data(),
        positions, vectors, values, threads);
  } else {
    ScoreRows(
        params, [&](uint32_t r) { return params.row(r); }, rows, offsets_.data(), entries_.data(),
        positions, vectors, values, threads);
  }
}

void RowGradients::ApplyAdamBackprop(Parameters& params, const float* vectors, const float* coeffs,
                                     size_t slots, float* vector_grads, const AdamStep& step,
                                     int threads) const {
  const uint32_t dim = params.dim;
  const size_t chunk_floats = slots * dim;
#pragma omp parallel num_threads(threads)
  {
    FloatVector grad(dim);
#pragma omp for schedule(dynamic)
    for (int64_t chunk = 0; chunk < int64_t{kChunks}; ++chunk) {
      float* chunk_grads = vector_grads + static_cast<size_t>(chunk) * chunk_floats;
      std::fill(chunk_grads, chunk_grads + chunk_floats, 0.0f);
      const size_t end = FirstListedOfChunk(static_cast<uint32_t>(chunk) + 1);
      for (size_t i = FirstListedOfChunk(static_cast<uint32_t>(chunk)); i < end; ++i) {
        if (i + kAhead < unique_) Prefetch(params, rows_[i + kAhead], /*row_bias=*/true);
        const uint32_t r = rows_[i];
        std::fill(grad.begin(), grad.end(), 0.0f);
        float bias_grad = 0;
        for (uint32_t e = offsets_[i]; e < offsets_[i + 1]; ++e) {
          const float* vector = vectors + size_t{entries_[e].slot} * dim;
          float* vector_grad = chunk_grads + size_t{entries_[e].slot} * dim;
          const float coeff = coeffs[e];
          Axpy(coeff, vector, grad.data(), dim);
          bias_grad += coeff;
          if (params.bf16_weights()) {
            Axpy(coeff, params.row16(r), vector_grad, dim);
          } else {
            Axpy(coeff, params.row(r), vector_grad, dim);
          }
        }
        ApplyRow(params, r, grad.data(), bias_grad, /*row_bias=*/true, step);
      }
    }
  }
}

}  // namespace sparsebench
