#pragma once

// Shared by the fuzz targets: invariants whose failure libFuzzer reports as a crash.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "datasets/dataset.h"

// Expected errors (DataError, ConfigError) are caught by the targets; anything else that
// escapes, a sanitizer report or a failed FUZZ_REQUIRE is a finding.
#define FUZZ_REQUIRE(condition)                                                                   \
  do {                                                                                            \
    if (!(condition)) {                                                                           \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #condition, __FILE__, __LINE__); \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)

namespace sparsebench::fuzz {

// What every reader promises about the Dataset it returns.
inline void CheckDataset(const Dataset& d) {
  FUZZ_REQUIRE(d.num_features <= kMaxDimension && d.num_labels <= kMaxDimension);
  FUZZ_REQUIRE(!d.label_offsets.empty() && d.label_offsets.front() == 0);
  FUZZ_REQUIRE(d.label_offsets.back() == d.label_ids.size());
  FUZZ_REQUIRE(std::is_sorted(d.label_offsets.begin(), d.label_offsets.end()));
  for (size_t r = 0; r < d.rows(); ++r) {
    const auto labels = d.labels(r);
    for (size_t i = 0; i < labels.size(); ++i) {
      FUZZ_REQUIRE(labels[i] < d.num_labels);
      for (size_t j = 0; j < i; ++j) FUZZ_REQUIRE(labels[i] != labels[j]);
    }
  }
  if (d.has_features()) {
    FUZZ_REQUIRE(d.row_offsets.front() == 0 && d.row_offsets.back() == d.feature_ids.size());
    FUZZ_REQUIRE(d.feature_ids.size() == d.values.size());
    FUZZ_REQUIRE(std::is_sorted(d.row_offsets.begin(), d.row_offsets.end()));
    for (uint32_t f : d.feature_ids) FUZZ_REQUIRE(f < d.num_features);
    for (float v : d.values) FUZZ_REQUIRE(std::isfinite(v));
  }
  if (d.text.size() > 0) {
    FUZZ_REQUIRE(d.text.size() == d.rows());
    FUZZ_REQUIRE(d.text.offsets.front() == 0 && d.text.offsets.back() == d.text.chars.size());
    FUZZ_REQUIRE(std::is_sorted(d.text.offsets.begin(), d.text.offsets.end()));
  }
  if (!d.label_names.empty()) FUZZ_REQUIRE(d.label_names.size() == d.num_labels);
}

// Featurized rows: sorted distinct ids below the bucket count, finite values, unit L2 norm.
inline void CheckFeaturized(const Dataset& d, uint32_t buckets) {
  FUZZ_REQUIRE(d.has_features() && d.num_features == buckets);
  CheckDataset(d);
  for (size_t r = 0; r < d.rows(); ++r) {
    const SparseRow row = d.row(r);
    double norm = 0;
    for (size_t i = 0; i < row.features.size(); ++i) {
      if (i > 0) FUZZ_REQUIRE(row.features[i - 1] < row.features[i]);
      norm += static_cast<double>(row.values[i]) * row.values[i];
    }
    FUZZ_REQUIRE(row.features.empty() || std::abs(norm - 1.0) < 1e-3);
  }
}

}  // namespace sparsebench::fuzz
