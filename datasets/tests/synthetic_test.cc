#include "datasets/synthetic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "datasets/featurizer.h"
#include "datasets/reader.h"
#include "datasets/stats.h"
#include "datasets/tests/test_paths.h"

namespace sparsebench {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Synthetic, Amazon670kReadsBackWithItsStatistics) {
  testing::TempDir dir;
  SynthSummary s = GenerateSynthetic({"amazon670k", 0.01, 5, 2}, dir.path());
  Dataset train = ReadDataset(s.train_path, Format::kXmc);
  EXPECT_EQ(train.rows(), 4904u);
  EXPECT_EQ(train.num_features, 1359u);
  EXPECT_EQ(train.num_labels, 6701u);
  DatasetStats st = ComputeStats(train);
  EXPECT_NEAR(st.features_per_row, 75.7, 6.0);
  EXPECT_NEAR(st.labels_per_row, 5.45, 0.5);
  EXPECT_EQ(st.nonzeros, s.nonzeros - ComputeStats(ReadDataset(s.test_path, Format::kXmc)).nonzeros);
}

TEST(Synthetic, SameSeedSameBytesWhateverTheThreads) {
  testing::TempDir a, b, c;
  GenerateSynthetic({"amazon670k", 0.003, 9, 1}, a.path());
  GenerateSynthetic({"amazon670k", 0.003, 9, 3}, b.path());
  GenerateSynthetic({"amazon670k", 0.003, 10, 1}, c.path());
  EXPECT_EQ(Slurp(a.file("train.txt")), Slurp(b.file("train.txt")));
  EXPECT_NE(Slurp(a.file("train.txt")), Slurp(c.file("train.txt")));
}

TEST(Synthetic, TextPresetsAreValidZhangCsv) {
  for (const char* preset : {"yelp", "dbpedia"}) {
    testing::TempDir dir;
    SynthSummary s = GenerateSynthetic({preset, 0.002, 3, 2}, dir.path());
    Dataset train = ReadDataset(s.train_path, Format::kCsv);
    Dataset test = ReadDataset(s.test_path, Format::kCsv);
    EXPECT_EQ(train.rows(), s.train_rows);
    EXPECT_EQ(test.rows(), s.test_rows);
    EXPECT_EQ(train.num_labels, std::string(preset) == "yelp" ? 2u : 14u);
    FeaturizeDataset(train, Featurizer(FeaturizerOptions{}), 2);
    EXPECT_GT(ComputeStats(train).features_per_row, 20.0) << preset;
  }
}

TEST(Synthetic, RejectsUnknownPresetAndBadScale) {
  testing::TempDir dir;
  EXPECT_THROW(GenerateSynthetic({"nope", 1.0, 1, 1}, dir.path()), std::invalid_argument);
  EXPECT_THROW(GenerateSynthetic({"yelp", 0.0, 1, 1}, dir.path()), std::invalid_argument);
  EXPECT_THROW(GenerateSynthetic({"yelp", std::nan(""), 1, 1}, dir.path()), std::invalid_argument);
}

}  // namespace
}  // namespace sparsebench
