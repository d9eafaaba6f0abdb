// sklearn (tools/engines/sklearn_text.py, scikit-learn over the protocol) learns text, pauses
// inside a pass where the harness asks, and refuses data it cannot train on with a reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "datasets/metrics.h"
#include "datasets/random.h"
#include "harness/measure/external/exec_learner.h"
#include "harness/measure/external/protocol.h"

namespace sparsebench {
namespace {

// `rows` short texts of 3 classes: each row has 4 words of its class's vocabulary and 4 of a
// shared one. Features (one a word) stand beside the text, as the featurizer would give them.
Dataset Texts(uint32_t rows, uint64_t seed, uint32_t labels_per_row = 1) {
  const std::vector<std::vector<std::string>> words = {
      {"tasty", "fresh", "friendly", "delicious"},
      {"slow", "rude", "cold", "dirty"},
      {"parking", "downtown", "hours", "menu"},
  };
  const std::vector<std::string> shared = {"the", "food", "place", "was", "we", "went"};
  Dataset d;
  d.num_features = 20;
  d.num_labels = 3;
  Rng rng(seed);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t label = r % 3;
    std::string text;
    for (int i = 0; i < 4; ++i) {
      text += words[label][rng.Below(4)] + " " + shared[rng.Below(6)] + " ";
    }
    d.text.push_back(text);
    d.feature_ids.push_back(label);
    d.values.push_back(1);
    d.row_offsets.push_back(d.feature_ids.size());
    for (uint32_t j = 0; j < labels_per_row; ++j) d.label_ids.push_back((label + j) % 3);
    d.label_offsets.push_back(d.label_ids.size());
  }
  return d;
}

TrainOptions TwoEpochsOfBatches() {
  TrainOptions options;
  options.epochs = 2;
  options.batch = 50;
  return options;
}

TEST(SklearnText, LearnsTextAndPausesInsideEachPass) {
  const Dataset train = Texts(400, 1), test = Texts(90, 2);
  ExecLearner learner("exec:sklearn_text,input=text", {20, 3}, TwoEpochsOfBatches());
  learner.Stage(train);
  std::vector<double> pauses;
  std::vector<double> accuracy;
  learner.Train(
      train, PausePlan{4, [&](const Progress& p) {
                         pauses.push_back(p.epoch);
                         accuracy.push_back(
                             ComputeMetrics(learner.Predict(test, 5), test).accuracy.value_or(0));
                       }});
  EXPECT_EQ(pauses, (std::vector<double>{0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2}));
  EXPECT_GE(accuracy.back(), accuracy.front());
  EXPECT_GT(ComputeMetrics(learner.Predict(test, 5), test).accuracy.value_or(0), 0.95);
  EXPECT_EQ(learner.PredictOne(test, 1, 3).ids[0], 1u);
  EXPECT_NE(learner.settings().optimizer.find("SGDClassifier(loss=hinge, alpha=0.0001"),
            std::string::npos)
      << learner.settings().optimizer;
  learner.Finish();
  EXPECT_EQ(learner.context().at("engine_off_clock"), "") << "predicts in pauses, and no more";
}

void ExpectRefused(const std::string& spec, const Dataset& train, const std::string& reason) {
  ExecLearner learner(spec, {20, 3}, TwoEpochsOfBatches());
  try {
    learner.Stage(train);
    learner.Train(train, PausePlan{});  // labels arrive with "train" (protocol 2)
    FAIL() << spec << " accepted data it cannot train on";
  } catch (const EngineFault& fault) {
    EXPECT_EQ(fault.status(), CellStatus::kError);
    EXPECT_NE(std::string(fault.what()).find(reason), std::string::npos) << fault.what();
  }
}

TEST(SklearnText, RefusesDataWithoutTextMultipleLabelsUnknownOptionsAndIdsInput) {
  Dataset no_text = Texts(40, 1);
  no_text.text = {};
  ExpectRefused("exec:sklearn_text,input=text", no_text,
                "sklearn trains on text: this dataset has no text column");
  ExpectRefused("exec:sklearn_text,input=text", Texts(40, 1, 2), "training row 0 has 2 labels");
  ExpectRefused("exec:sklearn_text", Texts(40, 1), "give it input=text");
  ExpectRefused("exec:sklearn_text,input=text,alpha=x", Texts(40, 1),
                "option alpha=x is not a float");
}

// A third-party library wrapped on protocol 1 as it shipped (engines/sgd_v1.py): it reads its
// data, labels included, in load and predicts in pauses. It runs as before, its context says
// the labels came at load, and the referee does not flag it.
TEST(ThirdPartyOnProtocolOne, RunsAndIsNotFlagged) {
  ExecLearner learner("exec:" SPARSEBENCH_SOURCE_DIR
                      "/harness/measure/external/tests/engines/sgd_v1.py",
                      {20, 3}, TwoEpochsOfBatches());
  Dataset train = Texts(600, 1);
  const Dataset test = Texts(150, 2);
  learner.Stage(train);
  learner.Train(train, PausePlan{4, [&](const Progress&) { learner.Predict(test, 5); }});
  EXPECT_GT(ComputeMetrics(learner.Predict(test, 5), test).accuracy.value_or(0), 0.95);
  learner.PredictOne(test, 1, 3);
  learner.Finish();
  const auto context = learner.context();
  EXPECT_EQ(context.at("engine_protocol"), "1: labels given at load");
  EXPECT_EQ(context.at("engine_off_clock"), "");
  EXPECT_GT(std::stod(context.at("engine_cpu_train_seconds")), 0.0);
}

}  // namespace
}  // namespace sparsebench
