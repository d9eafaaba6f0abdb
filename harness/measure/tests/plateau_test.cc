// The plateau rule, driven by a learner whose quality per epoch follows a script: rows whose
// feature id is below the script's value are predicted right, so the held-out metric rises,
// holds and falls exactly as the script says, whichever rows are held out.
#include <gtest/gtest.h>

#include <vector>

#include "engine/api/engine_error.h"
#include "harness/measure/measure.h"
#include "harness/record/cell_json.h"

namespace sparsebench {
namespace {

Dataset Rows(uint32_t n) {
  Dataset d;
  d.num_features = 10;
  d.num_labels = 2;
  for (uint32_t r = 0; r < n; ++r) {
    d.feature_ids.push_back(r % 10);
    d.values.push_back(1);
    d.row_offsets.push_back(d.feature_ids.size());
    d.label_ids.push_back(r % 2);
    d.label_offsets.push_back(d.label_ids.size());
  }
  return d;
}

class ScriptedLearner : public Learner {
 public:
  ScriptedLearner(std::vector<uint32_t> script, size_t& rows_seen)
      : script_(std::move(script)), rows_seen_(rows_seen) {}
  std::string spec() const override { return "scripted"; }
  TrainSettings settings() const override {
    return {1, 0.1, static_cast<uint32_t>(script_.size()), "none"};
  }
  void Train(const Dataset& train, const PausePlan& plan) override {
    rows_seen_ = train.rows();
    for (epoch_ = 0; epoch_ < script_.size();) {
      ++epoch_;
      Progress p;
      p.epoch = epoch_;
      p.samples = train.rows();
      p.epoch_end = true;
      if (!plan(p)) return;
    }
  }
  TopK Predict(const Dataset& data, uint32_t k) const override {
    TopK top{k, std::vector<uint32_t>(data.rows() * k), std::vector<float>(data.rows() * k)};
    const uint32_t good = epoch_ == 0 ? 0 : script_[epoch_ - 1];
    for (size_t r = 0; r < data.rows(); ++r) {
      const bool right = data.row(r).features[0] < good;
      top.ids[r * k] = right ? data.labels(r)[0] : 1 - data.labels(r)[0];
      for (uint32_t j = 1; j < k; ++j) top.ids[r * k + j] = 2 + j;
    }
    return top;
  }
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override {
    return Predict(TakeRows(data, std::vector<uint32_t>{static_cast<uint32_t>(row)}), k);
  }
  void Save(const std::string&) const override {}
  size_t model_bytes() const override { return 0; }

 private:
  std::vector<uint32_t> script_;
  size_t& rows_seen_;
  size_t epoch_ = 0;
};

struct Outcome {
  nlohmann::json row;
  size_t rows_trained = 0;
};

Outcome Measure(std::vector<uint32_t> script, double holdout, uint32_t patience,
                uint32_t rows = 400, double min_improvement = 0) {
  MeasureSettings s;
  s.progress = false;
  s.metric = "accuracy";
  s.holdout = holdout;
  s.patience = patience;
  s.min_improvement = min_improvement;
  Outcome out;
  Dataset train = Rows(rows);
  const Dataset test = Rows(100);
  const LearnerFactory make = [&](const DataShape&) {
    return std::make_unique<ScriptedLearner>(script, out.rows_trained);
  };
  out.row = ToJson(TrainAndMeasure(make, train, test, s).result);
  return out;
}

TEST(Plateau, StopsWhenPatienceEpochsPassWithoutANewBest) {
  // Best at epoch 3; epoch 4 only equals it, epoch 5 is worse: two epochs without a new best.
  const Outcome o = Measure({2, 5, 6, 6, 5, 9, 10}, 0.1, 2);
  EXPECT_EQ(o.row["stopped_by"], "plateau");
  EXPECT_EQ(o.row["epochs_trained"], 5.0);
  EXPECT_EQ(o.row["best_holdout_epoch"], 3.0);
  EXPECT_EQ(o.row["patience_epochs"], 2);
  EXPECT_EQ(o.row["holdout_rows"], 40);
  EXPECT_EQ(o.rows_trained, 360u);  // the held-out rows are out of training
  ASSERT_EQ(o.row["epoch_details"].size(), 5u);
  EXPECT_TRUE(o.row["epoch_details"][0].contains("holdout_accuracy"));
  EXPECT_DOUBLE_EQ(o.row["accuracy"].get<double>(), 0.5);  // the model it stopped with: epoch 5's
}

TEST(Plateau, ANewBestWithinPatienceKeepsTraining) {
  const Outcome o =
      Measure({2, 5, 4, 7, 7, 7, 8}, 0.1, 2);  // a dip at 3, a new best at 4, then flat
  EXPECT_EQ(o.row["stopped_by"], "plateau");
  EXPECT_EQ(o.row["epochs_trained"], 6.0);
  EXPECT_EQ(o.row["best_holdout_epoch"], 4.0);
}

TEST(Plateau, GainsNoLargerThanTheMinimumImprovementAreNotANewBest) {
  // Each step of the script is a tenth of the rows, about 0.1 in accuracy: epoch 3's gain over
  // epoch 2 does not beat 0.15, so epoch 2 stays the best and the rule stops at epoch 4.
  const std::vector<uint32_t> script = {2, 5, 6, 6, 6, 9, 10};
  const Outcome strict = Measure(script, 0.1, 2, 4000, 0.15);
  EXPECT_EQ(strict.row["stopped_by"], "plateau") << strict.row.dump();
  EXPECT_EQ(strict.row["best_holdout_epoch"], 2.0);
  EXPECT_EQ(strict.row["epochs_trained"], 4.0);
  EXPECT_EQ(strict.row["min_improvement"], 0.15);
  const Outcome any = Measure(script, 0.1, 2, 4000);
  EXPECT_EQ(any.row["best_holdout_epoch"], 3.0);
  EXPECT_EQ(any.row["epochs_trained"], 5.0);
  EXPECT_FALSE(any.row.contains("min_improvement"));
}

TEST(Plateau, StillImprovingAtTheLastEpochRunsThemAll) {
  const Outcome o = Measure({1, 2, 3, 4}, 0.1, 2);
  EXPECT_FALSE(o.row.contains("stopped_by"));
  EXPECT_EQ(o.row["epochs_trained"], 4.0);
  EXPECT_EQ(o.row["patience_epochs"], 2);
}

TEST(Plateau, WithoutTheRuleNothingIsHeldOut) {
  const Outcome o = Measure({2, 5, 6, 6, 5, 9, 10}, 0, 0);
  EXPECT_EQ(o.rows_trained, 400u);
  EXPECT_EQ(o.row["epochs_trained"], 7.0);
  EXPECT_FALSE(o.row.contains("holdout_rows"));
}

TEST(Plateau, AHoldoutThatLeavesNoRowsIsRefused) {
  EXPECT_THROW(Measure({1, 2}, 0.1, 2, 3), ConfigError);
}

}  // namespace
}  // namespace sparsebench
