#include "datasets/featurizer.h"

#include <omp.h>
#include <xxhash.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "datasets/random.h"

namespace sparsebench {
namespace {

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// Calls fn(token) for each token; tokens with capitals are lowercased into `lowered`.
template <typename Fn>
void ForEachToken(std::string_view text, std::string& lowered, Fn&& fn) {
  const char* s = text.data();
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    while (i < n && !IsWordByte(static_cast<unsigned char>(s[i]))) ++i;
    if (i == n) break;
    const size_t begin = i;
    bool upper = false;
    while (i < n) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (IsWordByte(c)) {
        upper |= c >= 'A' && c <= 'Z';
        ++i;
      } else if (c == '\'' && i + 1 < n && IsWordByte(static_cast<unsigned char>(s[i + 1]))) {
        ++i;
      } else {
        break;
      }
    }
    std::string_view token(s + begin, i - begin);
    if (upper) {
      lowered.assign(token);
      for (char& c : lowered) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      token = lowered;
    }
    fn(token);
  }
}

uint32_t Bucket(uint64_t hash, uint32_t buckets) {
  return static_cast<uint32_t>(((hash >> 32) * static_cast<uint64_t>(buckets)) >> 32);
}

}  // namespace

Featurizer::Featurizer(FeaturizerOptions options) : options_(options) {
  assert(options_.buckets > 0);
}

void Featurizer::Tokenize(std::string_view text, std::vector<std::string>& tokens) {
  std::string token;
  ForEachToken(text, token, [&](std::string_view t) { tokens.emplace_back(t); });
}

void Featurizer::Featurize(std::string_view text, FeatureVector& out,
                           std::vector<uint32_t>& scratch) const {
  scratch.clear();
  std::string token;
  uint64_t previous = 0;
  bool has_previous = false;
  ForEachToken(text, token, [&](std::string_view t) {
    const uint64_t h = XXH3_64bits_withSeed(t.data(), t.size(), options_.seed);
    scratch.push_back(Bucket(h, options_.buckets));
    if (options_.bigrams && has_previous) {
      scratch.push_back(Bucket(Mix64(previous * 0x100000001b3ULL ^ h), options_.buckets));
    }
    previous = h;
    has_previous = true;
  });
  std::sort(scratch.begin(), scratch.end());
  out.ids.clear();
  out.values.clear();
  for (size_t i = 0; i < scratch.size();) {
    size_t j = i;
    while (j < scratch.size() && scratch[j] == scratch[i]) ++j;
    out.ids.push_back(static_cast<uint32_t>(scratch[i]));
    out.values.push_back(options_.binary ? 1.0f : static_cast<float>(j - i));
    i = j;
  }
  if (options_.l2_normalize && !out.values.empty()) {
    double norm = 0;
    for (float v : out.values) norm += static_cast<double>(v) * v;
    const auto inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& v : out.values) v *= inv;
  }
}

std::string Featurizer::Describe() const {
  return "buckets=" + std::to_string(options_.buckets) + ",bigrams=" +
         (options_.bigrams ? "1" : "0") + ",binary=" + (options_.binary ? "1" : "0") +
         ",l2=" + (options_.l2_normalize ? "1" : "0") + ",seed=" + std::to_string(options_.seed);
}

void FeaturizeDataset(Dataset& data, const Featurizer& featurizer, int threads) {
  const size_t rows = data.text.size();
  const int parts = std::max(1, std::min<int>(threads, static_cast<int>(rows / 256) + 1));
  std::vector<FeatureVector> local(static_cast<size_t>(parts));
  std::vector<std::vector<uint64_t>> local_ends(static_cast<size_t>(parts));
#pragma omp parallel num_threads(parts)
  {
    const auto t = static_cast<size_t>(omp_get_thread_num());
    const size_t begin = rows * t / static_cast<size_t>(parts);
    const size_t end = rows * (t + 1) / static_cast<size_t>(parts);
    FeatureVector row;
    std::vector<uint32_t> scratch;
    const size_t text_bytes = data.text.offsets[end] - data.text.offsets[begin];
    local[t].ids.reserve(text_bytes / 3);  // about one unigram or bigram per 3 bytes of text
    local[t].values.reserve(text_bytes / 3);
    local_ends[t].reserve(end - begin);
    for (size_t r = begin; r < end; ++r) {
      featurizer.Featurize(data.text.at(r), row, scratch);
      local[t].ids.insert(local[t].ids.end(), row.ids.begin(), row.ids.end());
      local[t].values.insert(local[t].values.end(), row.values.begin(), row.values.end());
      local_ends[t].push_back(local[t].ids.size());
    }
  }
  // Thread 0's rows become the CSR arrays as they are; the other threads' rows are appended.
  data.feature_ids = std::move(local[0].ids);
  data.values = std::move(local[0].values);
  data.row_offsets.assign(1, 0);
  data.row_offsets.reserve(rows + 1);
  data.row_offsets.insert(data.row_offsets.end(), local_ends[0].begin(), local_ends[0].end());
  for (size_t t = 1; t < local.size(); ++t) {
    const uint64_t base = data.feature_ids.size();
    for (uint64_t end : local_ends[t]) data.row_offsets.push_back(base + end);
    data.feature_ids.insert(data.feature_ids.end(), local[t].ids.begin(), local[t].ids.end());
    data.values.insert(data.values.end(), local[t].values.begin(), local[t].values.end());
    local[t] = FeatureVector{};
  }
  data.num_features = featurizer.options().buckets;
}

}  // namespace sparsebench
