// Every family stops training at the pause where the plan says stop, mid-epoch, and then
// predicts with the model as it is: what a training budget relies on. (fastText's threads
// stop in baselines/tests/fasttext_test.cc.)
#include <gtest/gtest.h>

#include "engine/api/engine_family.h"
#include "harness/cli/engines.h"

namespace sparsebench {
namespace {

// 256 rows of 4 features and 8 labels (row r has label r % 8), and text that names the label.
Dataset Rows() {
  Dataset d;
  d.num_features = 4;
  d.num_labels = 8;
  for (uint32_t r = 0; r < 256; ++r) {
    d.feature_ids.push_back(r % 4);
    d.values.push_back(1);
    d.row_offsets.push_back(d.feature_ids.size());
    d.label_ids.push_back(r % 8);
    d.label_offsets.push_back(d.label_ids.size());
    d.text.push_back("word" + std::to_string(r % 8) + " filler");
  }
  return d;
}

class StopAtAPause : public testing::TestWithParam<const char*> {};

TEST_P(StopAtAPause, EndsTrainingThereAndStillPredicts) {
  Dataset data = Rows();
  const std::string spec = GetParam();
  if (!BuiltinEngines().ReadsText(spec)) data.text = {};
  TrainOptions options;
  options.epochs = 3;
  options.batch = 16;
  std::unique_ptr<Learner> learner = BuiltinEngines().MakeLearner(spec, {4, 8}, options);
  learner->Stage(data);
  std::vector<Progress> pauses;
  learner->Train(data, PausePlan{4, [&](const Progress& p) { pauses.push_back(p); },
                                 [&] { return pauses.size() == 3; }});
  ASSERT_EQ(pauses.size(), 3u) << spec;  // of 12 planned
  EXPECT_DOUBLE_EQ(pauses.back().epoch, 0.75) << spec;
  EXPECT_FALSE(pauses.back().epoch_end) << spec;
  EXPECT_EQ(pauses.back().samples, 192u) << spec;
  const TopK top = learner->Predict(data, 5);
  EXPECT_EQ(top.ids.size(), data.rows() * 5) << spec;
  learner->Finish();
}

INSTANTIATE_TEST_SUITE_P(Families, StopAtAPause,
                         testing::Values("sparse", "sparse:out_sparsity=1", "text", "blas",
#ifdef SPARSEBENCH_HAVE_TORCH
                                         "torch",
#endif
                                         "exec:null"),
                         [](const auto& info) {
                           std::string name;
                           for (const char* c = info.param; *c != '\0'; ++c)
                             name += std::isalnum(*c) ? *c : '_';
                           return name;
                         });

}  // namespace
}  // namespace sparsebench
