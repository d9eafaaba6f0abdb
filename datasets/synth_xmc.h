#pragma once

#include <cstdint>
#include <string>

#include "datasets/synthetic.h"

namespace sparsebench {

// Shape of an extreme-classification dataset and of its generative story.
struct XmcShape {
  uint64_t train_rows;
  uint64_t test_rows;
  uint32_t features;
  uint32_t labels;
  double features_per_row = 75.7;
  double labels_per_row = 5.45;
};

XmcShape Amazon670kShape(double scale);
SynthSummary WriteSyntheticXmc(const XmcShape& shape, uint64_t seed, int threads,
                               const std::string& out_dir);

}  // namespace sparsebench
