// Training end to end on the synthetic Amazon-670K preset, and reproducibility.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <set>

#include "datasets/reader.h"
#include "datasets/synthetic.h"
#include "datasets/tests/test_paths.h"
#include "engine/api/tests/test_util.h"
#include "engine/train/sparse_learner.h"

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
    auto learner = std::make_unique<SparseLearner>(SparseConfig::Parse(spec, shape), shape,
                                                   Options(threads, epochs));
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
  const auto best =
      static_cast<uint32_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
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

// The output weights as fp32, whichever the store.
std::vector<float> OutputWeights(const SparseLearner& learner) {
  const Parameters& out = learner.network().output;
  std::vector<float> weights(size_t{out.rows} * out.dim);
  for (uint32_t r = 0; r < out.rows; ++r) out.CopyRow(r, weights.data() + size_t{r} * out.dim);
  return weights;
}

TEST_F(Amazon, OneThreadIsBitForBitRepeatableAndThreadCountDoesNotMatter) {
  for (const std::string weights : {"fp32", "bf16"}) {
    const std::string spec = "sparse:out_sparsity=0.05,weights=" + weights;
    auto a = Train(spec, 1, 1);
    auto b = Train(spec, 1, 1);
    auto c = Train(spec, 2, 1);
    EXPECT_EQ(a->network().output.bf16_weights(), weights == "bf16");
    EXPECT_EQ(OutputWeights(*a), OutputWeights(*b)) << spec;
    EXPECT_EQ(a->network().input.w, b->network().input.w) << spec;
    EXPECT_EQ(OutputWeights(*a), OutputWeights(*c)) << spec;
    EXPECT_EQ(a->network().input.bias, c->network().input.bias) << spec;
  }
}

// bf16 weights with stochastic rounding learn as well as fp32 ones; the saved model is fp32
// and predicts the same after loading.
TEST_F(Amazon, Bf16WeightsLearnAsWellAsFp32) {
  auto fp32 = Train("sparse:out_sparsity=0.05,weights=fp32", 2, 4);
  auto bf16 = Train("sparse:out_sparsity=0.05,weights=bf16", 2, 4);
  const double p32 = ComputeMetrics(fp32->Predict(*test_, 5), *test_).p_at_1;
  const double p16 = ComputeMetrics(bf16->Predict(*test_, 5), *test_).p_at_1;
  RecordProperty("p_at_1_fp32", std::to_string(p32));
  RecordProperty("p_at_1_bf16", std::to_string(p16));
  EXPECT_GT(p16, p32 - 0.02);
  const std::string path = dir_->file("bf16.spbm");
  bf16->Save(path);
  const SparseLearner loaded(path, Options(2));
  EXPECT_TRUE(loaded.network().output.bf16_weights());
  EXPECT_EQ(OutputWeights(loaded), OutputWeights(*bf16));
  EXPECT_EQ(loaded.Predict(*test_, 5).ids, bf16->Predict(*test_, 5).ids);
}

// `rehash=N` draws new hash functions (and so rebuilds) every N batches, whatever the rebuild
// schedule says; before, it fired only when a scheduled rebuild fell on a multiple of N.
TEST_F(Amazon, RehashEveryNBatchesForcesARebuildEveryNBatches) {
  const DataShape shape{train_->num_features, train_->num_labels};
  const uint64_t batches = (train_->rows() + 63) / 64;
  for (const uint32_t every : {2u, 3u}) {
    const std::string spec =
        "sparse:out_sparsity=0.05,rebuild=100000,rehash=" + std::to_string(every);
    SparseLearner learner(SparseConfig::Parse(spec, shape), shape, Options(1, 1));
    const Progress end = testing::TrainReportingLastEpoch(learner, *train_);
    EXPECT_EQ(end.details.at("rebuilds"), static_cast<double>(batches / every)) << spec;
  }
  SparseLearner never(SparseConfig::Parse("sparse:out_sparsity=0.05,rebuild=100000", shape), shape,
                      Options(1, 1));
  EXPECT_EQ(testing::TrainReportingLastEpoch(never, *train_).details.at("rebuilds"), 0);
}

// The work counts are exact: the same at one thread and two, the multiply-adds follow from the
// active neurons and input nonzeros, and random sampling probes no bucket.
TEST_F(Amazon, WorkCountsAreExactWhateverTheThreads) {
  const DataShape shape{train_->num_features, train_->num_labels};
  auto counts = [&](const std::string& spec, int threads) {
    SparseLearner learner(SparseConfig::Parse(spec, shape), shape, Options(threads, 1));
    return testing::TrainReportingLastEpoch(learner, *train_).details;
  };
  const std::string lsh = "sparse:out_sparsity=0.05";
  const auto one = counts(lsh, 1), two = counts(lsh, 2);
  uint64_t nonzeros = 0;
  for (size_t r = 0; r < train_->rows(); ++r) {
    if (!train_->row(r).labels.empty()) nonzeros += train_->row(r).features.size();
  }
  for (const char* key : {"active_neurons", "buckets_probed", "bucket_ids_read", "multiply_adds",
                          "rebuilds", "output_rows_per_batch", "input_rows_per_batch",
                          "bytes_samples", "bytes_update", "bytes_rebuild"}) {
    EXPECT_EQ(one.at(key), two.at(key)) << key;
  }
  EXPECT_GT(one.at("buckets_probed"), 0);
  EXPECT_GT(one.at("bucket_ids_read"), one.at("buckets_probed"));
  const double hidden = SparseConfig::Parse(lsh, shape).hidden;
  EXPECT_EQ(one.at("multiply_adds"),
            hidden * (2 * static_cast<double>(nonzeros) + 3 * one.at("active_neurons")));
  const auto random = counts("sparse:out_sparsity=0.05,hash=random", 1);
  EXPECT_EQ(random.at("buckets_probed"), 0);
  EXPECT_EQ(random.at("bucket_ids_read"), 0);
}

// In one batch of every row, the distinct rows updated are counted exactly: the input rows are
// the labelled rows' distinct features; the output rows hold every label and no more than the
// active neurons.
TEST_F(Amazon, DistinctRowsUpdatedInABatchAreCounted) {
  const DataShape shape{train_->num_features, train_->num_labels};
  TrainOptions options = Options(2);
  options.batch = static_cast<uint32_t>(train_->rows());
  SparseLearner learner(SparseConfig::Parse("sparse:out_sparsity=0.05", shape), shape, options);
  const auto details = testing::TrainReportingLastEpoch(learner, *train_).details;
  std::set<uint32_t> features, labels;
  for (size_t r = 0; r < train_->rows(); ++r) {
    const SparseRow row = train_->row(r);
    if (row.labels.empty()) continue;
    features.insert(row.features.begin(), row.features.end());
    labels.insert(row.labels.begin(), row.labels.end());
  }
  EXPECT_EQ(details.at("input_rows_per_batch"), static_cast<double>(features.size()));
  EXPECT_GE(details.at("output_rows_per_batch"), static_cast<double>(labels.size()));
  EXPECT_LE(details.at("output_rows_per_batch"), details.at("active_neurons"));
}

}  // namespace
}  // namespace sparsebench
