#include "datasets/dataset.h"

#include <algorithm>
#include <cassert>
#include <numeric>

#include "datasets/random.h"

namespace sparsebench {

SparseRow Dataset::row(size_t i) const {
  assert(has_features() && i < rows());
  const size_t begin = row_offsets[i];
  const size_t count = row_offsets[i + 1] - begin;
  return {std::span(feature_ids).subspan(begin, count), std::span(values).subspan(begin, count),
          labels(i)};
}

std::span<const uint32_t> Dataset::labels(size_t i) const {
  assert(i < rows());
  return std::span(label_ids).subspan(label_offsets[i], label_offsets[i + 1] - label_offsets[i]);
}

size_t Dataset::csr_bytes() const {
  return row_offsets.size() * sizeof(uint64_t) + feature_ids.size() * sizeof(uint32_t) +
         values.size() * sizeof(float) + label_offsets.size() * sizeof(uint64_t) +
         label_ids.size() * sizeof(uint32_t);
}

std::string Dataset::label_name(uint32_t label) const {
  return label < label_names.size() ? label_names[label] : std::to_string(label);
}

std::vector<uint32_t> SeededPermutation(size_t n, uint64_t seed) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  Rng rng(seed);
  for (size_t i = n; i > 1; --i) {
    std::swap(order[i - 1], order[rng.Below(static_cast<uint32_t>(i))]);
  }
  return order;
}

RowSplit HeldOutSplit(size_t n, double held_out_fraction, uint64_t seed) {
  std::vector<uint32_t> order = SeededPermutation(n, seed);
  const auto held = static_cast<size_t>(held_out_fraction * static_cast<double>(n) + 0.5);
  RowSplit split;
  split.held_out.assign(order.begin(), order.begin() + std::min(held, n));
  split.train.assign(order.begin() + std::min(held, n), order.end());
  std::sort(split.held_out.begin(), split.held_out.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

Dataset TakeRows(const Dataset& data, std::span<const uint32_t> rows) {
  Dataset out;
  out.name = data.name;
  out.num_features = data.num_features;
  out.num_labels = data.num_labels;
  out.label_names = data.label_names;
  for (uint32_t r : rows) {
    auto labels = data.labels(r);
    out.label_ids.insert(out.label_ids.end(), labels.begin(), labels.end());
    out.label_offsets.push_back(out.label_ids.size());
    if (data.has_features()) {
      SparseRow row = data.row(r);
      out.feature_ids.insert(out.feature_ids.end(), row.features.begin(), row.features.end());
      out.values.insert(out.values.end(), row.values.begin(), row.values.end());
      out.row_offsets.push_back(out.feature_ids.size());
    }
    if (data.has_text()) out.text.push_back(data.text.at(r));
  }
  return out;
}

std::vector<RowRange> Batches(size_t n, size_t batch_size) {
  assert(batch_size > 0);
  std::vector<RowRange> batches;
  for (size_t begin = 0; begin < n; begin += batch_size) {
    batches.push_back({begin, std::min(n, begin + batch_size)});
  }
  return batches;
}

}  // namespace sparsebench
