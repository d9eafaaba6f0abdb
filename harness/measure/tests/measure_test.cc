// The harness's one clock, driven by a fake learner whose every step sleeps and records how
// long it really took. Bounds come from those records and the test's own wall clock, never
// from the nominal sleeps, so a busy machine cannot fail the test: training time is at least
// what ran inside the clock and at most the wall time less what ran outside it.
#include "harness/measure/measure.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "harness/record/cell_json.h"

namespace sparsebench {
namespace {

using Seconds = std::chrono::duration<double>;
using Clock = std::chrono::steady_clock;
constexpr double kMake = 0.02, kStep = 0.05, kStage = 0.6, kPredict = 0.3;
constexpr uint32_t kEpochs = 2, kPausesPerEpoch = 2;

// Sleeps and returns the seconds it really took.
double Sleep(double seconds) {
  const auto start = Clock::now();
  std::this_thread::sleep_for(Seconds(seconds));
  return Seconds(Clock::now() - start).count();
}

// What the learner measured of itself.
struct Record {
  double make = 0, stage = 0, predicts = 0;
  std::vector<double> steps;                         // each step between pauses
  std::vector<Clock::time_point> paused, resumed;    // around each pause
  std::vector<double> pause_predicts;                // predicting within each pause
};

// 100 rows with label = row % 2; after its n-th pause the learner predicts the right label
// for the first n quarters of the rows, so its curve climbs 0.25, 0.5, 0.75, 1.
Dataset TwoClassRows() {
  Dataset d;
  d.num_features = 4;
  d.num_labels = 2;
  for (uint32_t r = 0; r < 100; ++r) {
    d.feature_ids.push_back(r % 4);
    d.values.push_back(1);
    d.row_offsets.push_back(d.feature_ids.size());
    d.label_ids.push_back(r % 2);
    d.label_offsets.push_back(d.label_ids.size());
  }
  return d;
}

class SleepingLearner : public Learner {
 public:
  explicit SleepingLearner(Record& record) : record_(record) {}
  std::string spec() const override { return "sleeping"; }
  TrainSettings settings() const override { return {16, 0.1, kEpochs, "none"}; }
  void Stage(const Dataset&) override { record_.stage += Sleep(kStage); }
  void Train(const Dataset& train, const PausePlan& plan) override {
    for (uint32_t e = 0; e < kEpochs; ++e) {
      for (uint32_t p = 1; p <= plan.per_epoch; ++p) {
        record_.steps.push_back(Sleep(kStep));
        ++pauses_;
        Progress progress;
        progress.epoch = e + static_cast<double>(p) / plan.per_epoch;
        progress.samples = train.rows() * p / plan.per_epoch;
        progress.epoch_end = p == plan.per_epoch;
        const double predicted = record_.predicts;
        record_.paused.push_back(Clock::now());
        const bool go_on = plan(progress);
        record_.resumed.push_back(Clock::now());
        record_.pause_predicts.push_back(record_.predicts - predicted);
        if (!go_on) return;
      }
    }
  }
  TopK Predict(const Dataset& data, uint32_t k) const override {
    record_.predicts += Sleep(kPredict);
    TopK top{k, std::vector<uint32_t>(data.rows() * k), std::vector<float>(data.rows() * k)};
    for (size_t r = 0; r < data.rows(); ++r) {
      const bool right = r < data.rows() * pauses_ / (kEpochs * kPausesPerEpoch);
      top.ids[r * k] = right ? data.labels(r)[0] : 1 - data.labels(r)[0];
      for (uint32_t j = 1; j < k; ++j) top.ids[r * k + j] = 2 + j;  // outside the labels
    }
    return top;
  }
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override { return Predict(TakeRows(data, std::vector<uint32_t>{static_cast<uint32_t>(row)}), k); }
  void Save(const std::string&) const override {}
  size_t model_bytes() const override { return 0; }

 private:
  Record& record_;
  uint32_t pauses_ = 0;
};

TEST(Measure, TheClockHoldsTrainingAndNothingElse) {
  Dataset train = TwoClassRows();
  const Dataset test = TwoClassRows();
  MeasureSettings s;
  s.evals_per_epoch = kPausesPerEpoch;
  s.eval_sample = 100;
  s.recall_sample = 0;
  s.metric = "accuracy";
  s.target = 0.5;
  s.progress = false;
  Record rec;
  const auto start = Clock::now();
  const Measurement m = TrainAndMeasure(
      [&rec](const DataShape&) {
        rec.make = Sleep(kMake);
        return std::make_unique<SleepingLearner>(rec);
      },
      train, test, s);
  const double wall = Seconds(Clock::now() - start).count();
  const nlohmann::json r = ToJson(m.result);  // as the child's line has it
  double inside = rec.make;
  for (double step : rec.steps) inside += step;
  const double train_seconds = r["train_seconds"].get<double>();
  EXPECT_GE(train_seconds, inside);
  EXPECT_LE(train_seconds, wall - rec.stage - rec.predicts);  // staging and every prediction are outside
  EXPECT_GE(r["curve_eval_seconds"].get<double>(), kEpochs * kPausesPerEpoch * kPredict);
  EXPECT_GE(r["eval_seconds"].get<double>(), kPredict);
  EXPECT_DOUBLE_EQ(r["metric_value"].get<double>(), 1.0);

  const nlohmann::json& curve = r["curve"];
  ASSERT_EQ(curve.size(), kEpochs * kPausesPerEpoch);
  ASSERT_EQ(rec.steps.size(), curve.size());
  for (size_t i = 0; i < curve.size(); ++i) {
    EXPECT_DOUBLE_EQ(curve[i][1].get<double>(), 0.5 * static_cast<double>(i + 1));  // monotonic epochs
    EXPECT_DOUBLE_EQ(curve[i][2].get<double>(), 0.25 * static_cast<double>(i + 1));
    if (i == 0) continue;
    // Between two points the clock holds the step and none of the predicting in the pauses
    // on either side of it.
    const double gained = curve[i][0].get<double>() - curve[i - 1][0].get<double>();
    const double around = Seconds(rec.resumed[i] - rec.paused[i - 1]).count();
    EXPECT_GE(gained, rec.steps[i]);
    EXPECT_LE(gained, around - rec.pause_predicts[i - 1] - rec.pause_predicts[i]) << "point " << i;
    EXPECT_GE(rec.pause_predicts[i], kPredict);
  }
  // The second point reaches 0.5: time to target is its training seconds, not the wall time.
  EXPECT_EQ(r["time_to_target_seconds"], curve[1][0]);
  EXPECT_LE(r["time_to_target_seconds"].get<double>(), train_seconds);
  EXPECT_EQ(r["curve_sample_rows"], std::min<size_t>(s.eval_sample, test.rows()));
  EXPECT_EQ(r["epoch_details"].size(), kEpochs);
  EXPECT_EQ(r["batch"], 16);
  EXPECT_EQ(r["optimizer"], "none");
}

MeasureSettings Quiet() {
  MeasureSettings s;
  s.evals_per_epoch = kPausesPerEpoch;
  s.eval_sample = 100;
  s.recall_sample = 0;
  s.metric = "accuracy";
  s.progress = false;
  return s;
}

Measurement MeasureSleeping(Record& rec, const MeasureSettings& s) {
  Dataset train = TwoClassRows();
  return TrainAndMeasure(
      [&rec](const DataShape&) { return std::make_unique<SleepingLearner>(rec); }, train,
      TwoClassRows(), s);
}

TEST(Measure, ABudgetStopsTrainingAtTheFirstPauseAfterIt) {
  MeasureSettings s = Quiet();
  s.train_budget_seconds = 0.08;  // the whole plan sleeps 4 x 0.05 s
  Record rec;
  const nlohmann::json r = ToJson(MeasureSleeping(rec, s).result);
  const nlohmann::json& curve = r["curve"];
  ASSERT_LT(rec.steps.size(), kEpochs * kPausesPerEpoch);
  ASSERT_EQ(curve.size(), rec.steps.size());  // the stop makes a point
  for (size_t i = 0; i + 1 < curve.size(); ++i)
    EXPECT_LT(curve[i][0].get<double>(), s.train_budget_seconds);
  EXPECT_GE(curve.back()[0].get<double>(), s.train_budget_seconds);
  EXPECT_EQ(r["stopped_by"], "budget");
  EXPECT_EQ(r["train_budget_seconds"], s.train_budget_seconds);
  EXPECT_EQ(r["epochs_trained"], curve.back()[1]);
  // Samples count the epoch cut short: 50 rows a step.
  const double samples = 50.0 * static_cast<double>(rec.steps.size());
  EXPECT_DOUBLE_EQ(r["samples_per_second"].get<double>(),
                   samples / r["train_seconds"].get<double>());
  EXPECT_DOUBLE_EQ(r["metric_value"].get<double>(), 0.25 * static_cast<double>(rec.steps.size()));
}

TEST(Measure, WithoutABudgetTrainingRunsToTheEnd) {
  Record rec;
  const nlohmann::json r = ToJson(MeasureSleeping(rec, Quiet()).result);
  EXPECT_EQ(rec.steps.size(), kEpochs * kPausesPerEpoch);
  EXPECT_FALSE(r.contains("stopped_by"));
  EXPECT_FALSE(r.contains("train_budget_seconds"));
  EXPECT_EQ(r["epochs_trained"], kEpochs);
}

TEST(Measure, CurvePointsAreSpacedByTrainingSecondsAndEveryEpochEnds) {
  MeasureSettings s = Quiet();
  s.eval_every_seconds = 1000;
  Record rec;
  const nlohmann::json r = ToJson(MeasureSleeping(rec, s).result);
  EXPECT_EQ(rec.steps.size(), kEpochs * kPausesPerEpoch);
  ASSERT_EQ(r["curve"].size(), kEpochs);
  EXPECT_EQ(r["curve"][0][1], 1.0);
  EXPECT_EQ(r["curve"][1][1], 2.0);
  EXPECT_EQ(rec.pause_predicts[0], 0.0);  // no point at the mid-epoch pause
}

TEST(Measure, ARepeatThatNeverReachesTheTargetHasNoTimeToTarget) {
  const Curve curve = {{0.1, 0.5, 0.2}, {0.2, 1.0, 0.4}};
  EXPECT_FALSE(TimeToTarget(curve, 0.5));
  EXPECT_EQ(TimeToTarget(curve, 0.4), 0.2);
  EXPECT_FALSE(TimeToTarget(curve, NAN));
}

}  // namespace
}  // namespace sparsebench
