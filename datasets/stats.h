#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/dataset.h"

namespace sparsebench {

struct DatasetStats {
  uint64_t rows = 0;
  uint32_t features = 0;
  uint32_t labels = 0;
  uint64_t nonzeros = 0;
  double features_per_row = 0;
  uint64_t max_features_per_row = 0;
  double labels_per_row = 0;
  uint64_t max_labels_per_row = 0;
  uint32_t labels_seen = 0;           // labels with at least one row
  double rows_per_seen_label = 0;
  std::vector<uint64_t> label_frequency_quantiles;  // at kLabelQuantiles, over seen labels
  double text_bytes_per_row = 0;      // 0 without text
  uint64_t csr_bytes = 0;
};

inline const std::vector<double> kLabelQuantiles = {0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0};

DatasetStats ComputeStats(const Dataset& data);
std::string FormatStats(const DatasetStats& stats);

}  // namespace sparsebench
