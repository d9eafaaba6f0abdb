#include "datasets/synth_xmc.h"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "datasets/synth_writer.h"
#include "datasets/zipf.h"

namespace sparsebench {
namespace {

constexpr uint32_t kLabelsPerTopic = 32;
constexpr uint32_t kPrototypeSize = 12;    // features that characterise one label
constexpr uint32_t kTopicPoolSize = 64;    // features shared by a topic's labels
constexpr double kPrototypeKeep = 0.4;     // chance that a label's prototype feature shows
constexpr double kTopicFeatures = 10;      // topic-pool features per row
constexpr double kSecondTopicShare = 0.25; // labels drawn from a second topic

// The generative story of an XMC row; everything but the Zipf tables is derived by hashing,
// so memory does not grow with the number of rows.
class XmcStory {
 public:
  XmcStory(const XmcShape& shape, uint64_t seed)
      : shape_(shape),
        seed_(seed),
        topics_((shape.labels + kLabelsPerTopic - 1) / kLabelsPerTopic),
        topic_zipf_(topics_, 0.5),
        within_topic_zipf_(kLabelsPerTopic, 0.6),
        noise_zipf_(shape.features, 1.0) {}

  // Appends one row in XMC text; returns its number of features.
  uint64_t WriteRow(uint64_t row_key, std::string& out) {
    Rng rng(MixSeed(seed_, row_key));
    DrawLabels(rng);
    DrawFeatures(rng);
    AppendRow(out);
    return ids_.size();
  }

 private:
  uint32_t TopicLabel(uint32_t topic, uint32_t rank) const {
    const uint32_t label = topic * kLabelsPerTopic + rank;
    return label < shape_.labels ? label : static_cast<uint32_t>(Mix64(label) % shape_.labels);
  }
  uint32_t Hashed(uint64_t a, uint64_t b) const {
    return static_cast<uint32_t>(MixSeed(seed_ ^ a, b) % shape_.features);
  }

  void DrawLabels(Rng& rng) {
    labels_.clear();
    const uint32_t first = topic_zipf_.Sample(rng);
    const uint32_t second = topic_zipf_.Sample(rng);
    const uint32_t count =
        std::min<uint32_t>(1 + Poisson(rng, shape_.labels_per_row - 1), kLabelsPerTopic);
    for (uint32_t tries = 0; labels_.size() < count && tries < 4 * count; ++tries) {
      const uint32_t topic = rng.Bernoulli(kSecondTopicShare) ? second : first;
      const uint32_t label = TopicLabel(topic, within_topic_zipf_.Sample(rng));
      if (std::find(labels_.begin(), labels_.end(), label) == labels_.end()) {
        labels_.push_back(label);
      }
    }
    std::sort(labels_.begin(), labels_.end());
    topic_ = first;
  }

  void AddFeature(uint32_t id, float weight) {
    ids_.push_back(id);
    weights_.push_back(weight);
  }

  void DrawFeatures(Rng& rng) {
    ids_.clear();
    weights_.clear();
    for (uint32_t label : labels_) {
      for (uint32_t j = 0; j < kPrototypeSize; ++j) {
        if (rng.Bernoulli(kPrototypeKeep)) AddFeature(Hashed(label, j), 1.0f);
      }
    }
    const uint32_t topic_count = Poisson(rng, kTopicFeatures);
    for (uint32_t j = 0; j < topic_count; ++j) {
      AddFeature(Hashed(0x70b1c000000ULL + topic_, rng.Below(kTopicPoolSize)), 0.8f);
    }
    const auto target = static_cast<size_t>(std::max(1.0, LogNormal(rng, shape_.features_per_row, 0.5)));
    for (int round = 0; round < 8; ++round) {
      const size_t distinct = DistinctIds();
      if (distinct >= target) break;
      for (size_t k = distinct; k < target; ++k) AddNoiseFeature(rng);
    }
    Finish(rng);
  }

  void AddNoiseFeature(Rng& rng) {
    const uint32_t n = shape_.features;
    const uint32_t rank = noise_zipf_.Sample(rng);
    const float idf = static_cast<float>(std::log(1.0 + n / (rank + 1.0)) / std::log(1.0 + n));
    AddFeature(static_cast<uint32_t>((uint64_t{rank} * 2654435761ULL + 17) % n), 0.3f + 0.7f * idf);
  }

  size_t DistinctIds() {
    order_.assign(ids_.begin(), ids_.end());
    std::sort(order_.begin(), order_.end());
    return static_cast<size_t>(std::unique(order_.begin(), order_.end()) - order_.begin());
  }

  // Merges repeated ids (as term counts), applies tf-idf-like weights, L2-normalises.
  void Finish(Rng& rng) {
    order_.resize(ids_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<uint32_t>(i);
    std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return ids_[a] < ids_[b]; });
    merged_ids_.clear();
    merged_values_.clear();
    double norm = 0;
    for (size_t i = 0; i < order_.size();) {
      size_t j = i;
      float weight = 0;
      while (j < order_.size() && ids_[order_[j]] == ids_[order_[i]]) weight = std::max(weight, weights_[order_[j++]]);
      const float tf = 1.0f + std::log(static_cast<float>(j - i) + static_cast<float>(rng.Below(3)));
      const float value = tf * weight * (0.75f + 0.5f * static_cast<float>(rng.Uniform()));
      merged_ids_.push_back(ids_[order_[i]]);
      merged_values_.push_back(value);
      norm += static_cast<double>(value) * value;
      i = j;
    }
    const auto inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& v : merged_values_) v *= inv;
    ids_.swap(merged_ids_);
  }

  void AppendRow(std::string& out) const {
    char buf[32];
    for (size_t i = 0; i < labels_.size(); ++i) {
      if (i > 0) out.push_back(',');
      out.append(buf, std::to_chars(buf, buf + sizeof buf, labels_[i]).ptr);
    }
    for (size_t i = 0; i < ids_.size(); ++i) {
      out.push_back(' ');
      out.append(buf, std::to_chars(buf, buf + sizeof buf, ids_[i]).ptr);
      out.push_back(':');
      const float v = std::max(merged_values_[i], 1e-6f);
      out.append(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 6).ptr);
    }
    out.push_back('\n');
  }

  XmcShape shape_;
  uint64_t seed_;
  uint32_t topics_;
  Zipf topic_zipf_;
  Zipf within_topic_zipf_;
  Zipf noise_zipf_;
  uint32_t topic_ = 0;
  std::vector<uint32_t> labels_, ids_, order_, merged_ids_;
  std::vector<float> weights_, merged_values_;
};

uint64_t WriteSplit(const XmcShape& shape, uint64_t seed, uint64_t rows, uint64_t key_base,
                    int threads, const std::string& path) {
  OutputFile out(path);
  out.Write(std::to_string(rows) + " " + std::to_string(shape.features) + " " +
            std::to_string(shape.labels) + "\n");
  const int parts = std::max(1, threads);
  std::vector<XmcStory> stories(static_cast<size_t>(parts), XmcStory(shape, seed));
  const uint64_t nnz = WriteRowsInOrder(out, rows, parts, [&](uint64_t row, std::string& buf) {
    return stories[static_cast<size_t>(omp_get_thread_num())].WriteRow(key_base + row, buf);
  });
  out.Close();
  return nnz;
}

}  // namespace

XmcShape Amazon670kShape(double scale) {
  auto scaled = [&](double full, double minimum) {
    return static_cast<uint64_t>(std::max(minimum, std::round(full * scale)));
  };
  return XmcShape{scaled(490449, 100), scaled(153025, 50), static_cast<uint32_t>(scaled(135909, 500)),
                  static_cast<uint32_t>(scaled(670091, 64))};
}

SynthSummary WriteSyntheticXmc(const XmcShape& shape, uint64_t seed, int threads,
                               const std::string& out_dir) {
  SynthSummary s;
  s.format = "xmc";
  s.train_path = out_dir + "/train.txt";
  s.test_path = out_dir + "/test.txt";
  s.train_rows = shape.train_rows;
  s.test_rows = shape.test_rows;
  s.nonzeros = WriteSplit(shape, seed, shape.train_rows, 0, threads, s.train_path);
  s.nonzeros += WriteSplit(shape, seed, shape.test_rows, uint64_t{1} << 40, threads, s.test_path);
  return s;
}

}  // namespace sparsebench
