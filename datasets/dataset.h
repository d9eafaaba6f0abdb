#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparsebench {

// The largest D (features) and L (labels) a reader accepts: ids are below it, so an id + 1
// never wraps and every size derived from D or L fits the 32-bit ids. Whether a network of
// that size fits in memory is checked where it is built (engine/model/network.h).
inline constexpr uint32_t kMaxDimension = 0x7fffffff;  // 2^31 - 1
// The largest class number of a text file with numbered classes (Zhang CSV): every class up
// to the largest gets a name and an output neuron.
inline constexpr uint32_t kMaxTextClasses = 1'000'000;

// Raw text of each row, for engines that featurize themselves.
struct TextColumn {
  std::vector<uint64_t> offsets{0};
  std::string chars;

  size_t size() const { return offsets.size() - 1; }
  std::string_view at(size_t row) const {
    return std::string_view(chars).substr(offsets[row], offsets[row + 1] - offsets[row]);
  }
  void push_back(std::string_view text) {
    chars.append(text);
    offsets.push_back(chars.size());
  }
};

struct SparseRow {
  std::span<const uint32_t> features;
  std::span<const float> values;
  std::span<const uint32_t> labels;
};

// The one in-memory format every engine reads: CSR features and CSR labels, both 0-based.
struct Dataset {
  std::string name;
  std::vector<uint64_t> row_offsets{0};
  std::vector<uint32_t> feature_ids;
  std::vector<float> values;
  std::vector<uint64_t> label_offsets{0};
  std::vector<uint32_t> label_ids;
  uint32_t num_features = 0;
  uint32_t num_labels = 0;
  TextColumn text;                       // empty unless the source was text
  std::vector<std::string> label_names;  // empty when labels are plain ids

  size_t rows() const { return label_offsets.size() - 1; }
  size_t nnz() const { return feature_ids.size(); }
  bool has_features() const { return row_offsets.size() == label_offsets.size(); }
  bool has_text() const { return text.size() == rows() && rows() > 0; }
  SparseRow row(size_t i) const;
  std::span<const uint32_t> labels(size_t i) const;
  size_t csr_bytes() const;
  std::string label_name(uint32_t label) const;
};

// A seeded permutation of 0..n-1 (the same on every platform for a given seed).
std::vector<uint32_t> SeededPermutation(size_t n, uint64_t seed);

struct RowSplit {
  std::vector<uint32_t> train;
  std::vector<uint32_t> held_out;
};
// Splits rows 0..n-1 into a seeded held-out fraction and the rest, each in ascending order.
RowSplit HeldOutSplit(size_t n, double held_out_fraction, uint64_t seed);

// A new dataset with the given rows, in the given order (features, labels and text).
Dataset TakeRows(const Dataset& data, std::span<const uint32_t> rows);

struct RowRange {
  size_t begin;
  size_t end;
};
// Mini-batches [begin, end) over positions 0..n-1; the last one may be short.
std::vector<RowRange> Batches(size_t n, size_t batch_size);

}  // namespace sparsebench
