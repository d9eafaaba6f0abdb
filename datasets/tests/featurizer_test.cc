#include "datasets/featurizer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sparsebench {
namespace {

std::vector<std::string> Tokens(std::string_view text) {
  std::vector<std::string> tokens;
  Featurizer::Tokenize(text, tokens);
  return tokens;
}

TEST(Featurizer, TokenizesLowercaseKeepsInnerApostrophes) {
  EXPECT_EQ(Tokens("Don't STOP-me now, 'quoted' it's 42!"),
            (std::vector<std::string>{"don't", "stop", "me", "now", "quoted", "it's", "42"}));
}

TEST(Featurizer, NeverSplitsMultibyteCharacters) {
  EXPECT_EQ(Tokens("Café naïve—€5"), (std::vector<std::string>{"café", "naïve—€5"}));
}

TEST(Featurizer, UnigramsAndBigramsCountedAndNormalised) {
  FeaturizerOptions o;
  o.buckets = 1u << 30;  // no collisions among a handful of tokens
  o.l2_normalize = false;
  Featurizer f(o);
  FeatureVector v;
  std::vector<uint32_t> scratch;
  f.Featurize("good good food", v, scratch);
  ASSERT_EQ(v.ids.size(), 4u);  // good, food, "good good", "good food"
  float sum = 0;
  for (float x : v.values) sum += x;
  EXPECT_FLOAT_EQ(sum, 5.0f);  // 3 unigrams + 2 bigrams
  EXPECT_TRUE(std::is_sorted(v.ids.begin(), v.ids.end()));

  o.bigrams = false;
  o.binary = true;
  o.l2_normalize = true;
  Featurizer unigram(o);
  unigram.Featurize("good good food", v, scratch);
  ASSERT_EQ(v.ids.size(), 2u);
  EXPECT_FLOAT_EQ(v.values[0], 1.0f / std::sqrt(2.0f));
}

TEST(Featurizer, BigramOrderMatters) {
  Featurizer f(FeaturizerOptions{});
  FeatureVector a, b;
  std::vector<uint32_t> scratch;
  f.Featurize("not good", a, scratch);
  f.Featurize("good not", b, scratch);
  EXPECT_NE(a.ids, b.ids);
}

TEST(Featurizer, DeterministicAcrossThreads) {
  Dataset d;
  for (int i = 0; i < 5000; ++i) {
    d.text.push_back("review number " + std::to_string(i) + " was not bad at all");
    d.label_ids.push_back(static_cast<uint32_t>(i % 2));
    d.label_offsets.push_back(d.label_ids.size());
  }
  Dataset e = d;
  Featurizer f(FeaturizerOptions{});
  FeaturizeDataset(d, f, 1);
  FeaturizeDataset(e, f, 3);
  EXPECT_EQ(d.num_features, 100000u);
  EXPECT_EQ(d.row_offsets, e.row_offsets);
  EXPECT_EQ(d.feature_ids, e.feature_ids);
  EXPECT_EQ(d.values, e.values);
}

TEST(Featurizer, EmptyTextGivesNoFeatures) {
  Featurizer f(FeaturizerOptions{});
  FeatureVector v;
  std::vector<uint32_t> scratch;
  f.Featurize("  ,,, !! ", v, scratch);
  EXPECT_TRUE(v.ids.empty());
}

}  // namespace
}  // namespace sparsebench
