#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsebench {

struct SynthOptions {
  std::string preset;  // amazon670k, yelp or dbpedia
  double scale = 1.0;  // shrinks points (and for amazon670k features and labels) together
  uint64_t seed = 1;
  int threads = 1;
  uint32_t labels = 0;  // amazon670k: override the scaled label count (0 = scaled)
};

struct SynthSummary {
  std::string train_path;
  std::string test_path;
  std::string format;  // "xmc" or "csv"
  uint64_t train_rows = 0;
  uint64_t test_rows = 0;
  uint64_t nonzeros = 0;  // written feature entries (xmc) or words (csv)
};

std::vector<std::string> SyntheticPresets();
// Writes DIR/train.* and DIR/test.*; deterministic for (preset, scale, seed) whatever the
// thread count. Throws std::invalid_argument for a bad preset or scale, DataError on I/O.
SynthSummary GenerateSynthetic(const SynthOptions& options, const std::string& out_dir);

}  // namespace sparsebench
