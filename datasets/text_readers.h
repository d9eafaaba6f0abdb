#pragma once

#include <string>
#include <vector>

#include "datasets/dataset.h"

namespace sparsebench {

struct TextReadOptions {
  uint32_t num_labels = 0;               // CSV: labels must be <= this when set (test files)
  std::vector<std::string> label_names;  // fastText: the training file's labels, when set
  std::string field_separator = " | ";   // joins title and content of 3-column CSV
};

// Zhang et al. CSV ("label","text" or "label","title","content"): quoted fields, doubled
// quotes, "\n" escapes, 1-based labels stored 0-based. Fills labels and text, not features.
Dataset ReadZhangCsv(const std::string& path, const TextReadOptions& options = {});

// fastText format: "__label__A __label__B text ..." per line.
Dataset ReadFastTextFile(const std::string& path, const TextReadOptions& options = {});

}  // namespace sparsebench
