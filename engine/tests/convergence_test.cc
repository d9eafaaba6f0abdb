// Training end to end on the synthetic Amazon-670K preset, and reproducibility.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "datasets/reader.h"
#include "datasets/synthetic.h"
#include "datasets/tests/test_paths.h"
#include "engine/sparse_learner.h"

namespace sparsebench {
namespace {

class Amazon : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    GenerateSynthetic({"amazon670k", 0.01, 1, 2}, dir_->path());
    train_ = new Dataset(ReadDataset(dir_->file("train.txt"), Format::kXmc));
    test_ = new Dataset(ReadDataset(dir_->file("test.txt"), Format::kXmc));
  }
  static void TearDownTestSuite() {
    delete train_;
    delete test_;
    delete dir_;
  }
  static TrainOptions Options(int threads, int epochs = 1) {
    TrainOptions o;
    o.epochs = static_cast<uint32_t>(epochs);
    o.batch = 64;
    o.lr = 0.01f;
    o.threads = threads;
    o.seed = 3;
    return o;
  }
  static std::unique_ptr<SparseLearner> Train(const std::string& spec, int threads, int epochs) {
    const DataShape shape{train_->num_features, train_->num_labels};
    auto learner = std::make_unique<SparseLearner>(SparseConfig::Parse(spec, shape), shape, Options(threads, epochs));
    learner->Train(*train_, {});
    return learner;
  }

  static testing::TempDir* dir_;
  static Dataset* train_;
  static Dataset* test_;
};

testing::TempDir* Amazon::dir_ = nullptr;
Dataset* Amazon::train_ = nullptr;
Dataset* Amazon::test_ = nullptr;

// P@1 of predicting the most frequent training labels for every test row.
double MostFrequentLabelPrecision(const Dataset& train, const Dataset& test) {
  std::vector<uint64_t> counts(train.num_labels, 0);
  for (uint32_t l : train.label_ids) ++counts[l];
  const auto best = static_cast<uint32_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
  uint64_t hits = 0;
  for (size_t r = 0; r < test.rows(); ++r) {
    auto labels = test.labels(r);
    hits += std::find(labels.begin(), labels.end(), best) != labels.end();
  }
  return static_cast<double>(hits) / static_cast<double>(test.rows());
}

TEST_F(Amazon, SparseEngineBeatsMostFrequentLabelByAWideMargin) {
  const double baseline = MostFrequentLabelPrecision(*train_, *test_);
  auto learner = Train("sparse:out_sparsity=0.05", 2, 4);
  const Metrics m = ComputeMetrics(learner->Predict(*test_, 5), *test_);
  RecordProperty("p_at_1", std::to_string(m.p_at_1));
  RecordProperty("baseline_p_at_1", std::to_string(baseline));
  EXPECT_GT(m.p_at_1, 0.12) << "baseline " << baseline;
  EXPECT_GT(m.p_at_1, 5 * baseline) << "baseline " << baseline;
  // Sparse inference scores only the neurons the tables return: close to exact, cheaper.
  const Metrics sparse = ComputeMetrics(learner->PredictWithSelector(*test_, 5), *test_);
  RecordProperty("sparse_p_at_1", std::to_string(sparse.p_at_1));
  EXPECT_GT(sparse.p_at_1, 0.6 * m.p_at_1);
}

TEST_F(Amazon, OneThreadIsBitForBitRepeatableAndThreadCountDoesNotMatter) {
  auto a = Train("sparse:out_sparsity=0.05", 1, 1);
  auto b = Train("sparse:out_sparsity=0.05", 1, 1);
  auto c = Train("sparse:out_sparsity=0.05", 2, 1);
  EXPECT_EQ(a->network().output.w, b->network().output.w);
  EXPECT_EQ(a->network().input.w, b->network().input.w);
  EXPECT_EQ(a->network().output.w, c->network().output.w);
  EXPECT_EQ(a->network().input.bias, c->network().input.bias);
}

}  // namespace
}  // namespace sparsebench
