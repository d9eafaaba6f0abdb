#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/dataset.h"

namespace sparsebench {

struct FeaturizerOptions {
  uint32_t buckets = 100'000;
  bool bigrams = true;
  bool binary = false;       // 1 per distinct feature instead of counts
  bool l2_normalize = true;
  uint64_t seed = 0;         // changes the hash, so different seeds give different collisions
};

struct FeatureVector {
  std::vector<uint32_t> ids;  // sorted, distinct
  std::vector<float> values;
};

// Lowercased (ASCII) UTF-8-safe tokens: runs of ASCII letters and digits and of non-ASCII
// bytes, with an apostrophe kept between two such characters ("don't"). Unigrams and bigrams
// are hashed with xxHash3 into `buckets` ids. Pure function of (options, text).
class Featurizer {
 public:
  explicit Featurizer(FeaturizerOptions options);

  const FeaturizerOptions& options() const { return options_; }
  // Appends the tokens of `text` to `tokens` (each lowercased), for tests and inspection.
  static void Tokenize(std::string_view text, std::vector<std::string>& tokens);
  // `scratch` is reused between calls to avoid allocation; it holds the token hashes.
  void Featurize(std::string_view text, FeatureVector& out, std::vector<uint32_t>& scratch) const;
  std::string Describe() const;

 private:
  FeaturizerOptions options_;
};

// Fills data's CSR features from its text column (num_features = buckets), in parallel.
void FeaturizeDataset(Dataset& data, const Featurizer& featurizer, int threads);

}  // namespace sparsebench
