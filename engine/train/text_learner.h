#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/featurizer.h"
#include "engine/api/learner.h"
#include "engine/train/sparse_learner.h"

namespace sparsebench {

// "text:..." settings. Parse resolves what the data decides ("auto"): input buckets from the
// number of training rows, hidden width and output sparsity from the number of classes;
// passes are resolved when training starts (see TextLearner).
struct TextConfig {
  FeaturizerOptions featurizer;
  uint32_t hidden = 0;       // 0: auto
  double out_sparsity = -1;  // < 0: auto (dense up to 1024 classes)
  uint32_t epochs = 0;       // 0: auto
  double lr = 0;             // 0: auto (unless --lr was given)
  double lr_decay = 0.5;     // the last pass runs at lr * lr_decay (linear in between)

  static TextConfig Parse(const std::string& spec);
  void Resolve(size_t rows, uint32_t labels);
  std::string Canonical() const;
  std::string SparseSpec() const;
};

// Text classification end to end (BOLT's UDT): raw text in, hashed unigrams and bigrams
// (the shared featurizer), the LSH-sparse engine on top. Reads Dataset::text; the model file
// carries the featurizer settings and label names, so `predict` takes raw text.
class TextLearner : public Learner {
 public:
  TextLearner(const std::string& spec, const DataShape& shape, const TrainOptions& options);
  // A saved text model; DataError naming the file when it cannot be read or its spec,
  // labels and network disagree.
  explicit TextLearner(const std::string& model_path, const TrainOptions& options);
  // The same from a loaded model; `source` names it in errors.
  TextLearner(SavedModel saved, const std::string& source, const TrainOptions& options);
  ~TextLearner() override;

  std::string spec() const override { return config_.Canonical(); }
  TrainSettings settings() const override;
  void Train(const Dataset& train, const PausePlan& plan) override;
  TopK Predict(const Dataset& data, uint32_t k) const override;
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override;
  TopK PredictText(std::string_view text, uint32_t k) const;
  std::optional<std::vector<std::vector<uint32_t>>> ActiveSets(const Dataset& rows) const override;
  void Save(const std::string& path) const override;
  size_t model_bytes() const override;
  std::map<std::string, std::string> context() const override;
  const std::vector<std::string>& label_names() const { return label_names_; }

 private:
  Dataset Featurized(const Dataset& data) const;
  void Build(uint32_t labels);
  uint32_t Passes(size_t rows) const;

  TextConfig config_;
  TrainOptions options_;
  Featurizer featurizer_;
  std::vector<std::string> label_names_;
  std::unique_ptr<SparseLearner> inner_;
  uint32_t passes_done_ = 0;
};

}  // namespace sparsebench
