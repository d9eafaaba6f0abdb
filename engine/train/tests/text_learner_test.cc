#include "engine/train/text_learner.h"

#include <gtest/gtest.h>

#include "datasets/synthetic.h"
#include "datasets/tests/test_paths.h"
#include "datasets/text_readers.h"
#include "engine/api/engine_error.h"
#include "engine/api/tests/test_util.h"

namespace sparsebench {
namespace {

struct TextData {
  Dataset train, test;
};

// The yelp preset at a small scale: 2,800 training and 190 test reviews, two classes.
TextData SmallYelp(const testing::TempDir& dir) {
  SynthOptions synth;
  synth.preset = "yelp";
  synth.scale = 0.005;
  const SynthSummary s = GenerateSynthetic(synth, dir.path());
  TextReadOptions test_options;
  test_options.num_labels = 2;
  return {ReadZhangCsv(s.train_path), ReadZhangCsv(s.test_path, test_options)};
}

TrainOptions TwoThreads() {
  TrainOptions options;
  options.threads = 2;
  return options;
}

TEST(TextLearner, SmallYelpPresetTrainsFromRawText) {
  testing::TempDir dir;
  const TextData data = SmallYelp(dir);
  TextLearner learner("text", {0, data.train.num_labels}, TwoThreads());
  const Progress report = testing::TrainReportingLastEpoch(learner, data.train);
  const Metrics m = ComputeMetrics(learner.Predict(data.test, 5), data.test);
  ASSERT_TRUE(m.accuracy.has_value());
  // Measured 0.705; either class alone is about 0.5.
  EXPECT_GE(*m.accuracy, 0.65) << learner.spec() << " passes " << report.details.at("passes");
  EXPECT_NE(learner.spec().find("buckets=65536"), std::string::npos)
      << learner.spec();  // chosen from 2,800 rows
}

TEST(TextLearner, SavedModelGivesTheSamePredictionsOnRawText) {
  testing::TempDir dir;
  const TextData data = SmallYelp(dir);
  TextLearner learner("text:epochs=1,hidden=16", {0, data.train.num_labels}, TwoThreads());
  learner.Train(data.train, {});
  learner.Save(dir.file("model.bin"));
  const TextLearner loaded(dir.file("model.bin"), TwoThreads());
  EXPECT_EQ(loaded.spec(), learner.spec());
  EXPECT_EQ(loaded.label_names(), learner.label_names());
  for (size_t r = 0; r < 20; ++r) {
    const TopK a = learner.PredictText(data.test.text.at(r), 2),
               b = loaded.PredictText(data.test.text.at(r), 2);
    EXPECT_EQ(a.ids, b.ids);
    EXPECT_EQ(a.scores, b.scores);
  }
}

TEST(TextLearner, SpecIsCheckedAndRoundTrips) {
  EXPECT_THROW(TextConfig::Parse("text:colour=1"), ConfigError);
  EXPECT_THROW(TextConfig::Parse("text:buckets=0"), ConfigError);
  TextConfig c = TextConfig::Parse("text:buckets=1024,epochs=3");
  c.Resolve(100, 2);
  EXPECT_EQ(TextConfig::Parse(c.Canonical()).Canonical(), c.Canonical());
}

TEST(TextLearner, NeedsRawText) {
  Dataset no_text;
  no_text.label_offsets = {0, 1};
  no_text.label_ids = {0};
  no_text.num_labels = 2;
  TextLearner learner("text", {0, 2}, TwoThreads());
  EXPECT_THROW(learner.Train(no_text, {}), ConfigError);
}

}  // namespace
}  // namespace sparsebench
