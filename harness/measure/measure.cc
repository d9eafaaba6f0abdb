#include "harness/measure/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "engine/api/engine_error.h"
#include "harness/measure/stopwatch.h"

namespace sparsebench {
namespace {

Dataset SampleRows(const Dataset& data, uint32_t rows, uint64_t seed) {
  std::vector<uint32_t> order = SeededPermutation(data.rows(), seed);
  order.resize(std::min<size_t>(rows, order.size()));
  std::sort(order.begin(), order.end());
  return TakeRows(data, order);
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return NAN;
  const size_t at = std::min(values.size() - 1, static_cast<size_t>(q * static_cast<double>(values.size())));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

void SetLatency(CellResult& r, const Learner& learner, const Dataset& test, uint32_t samples) {
  if (samples == 0) return;
  std::vector<double> micros;
  const size_t n = std::min<size_t>(samples, test.rows());
  for (size_t i = 0; i < n; ++i) {
    Stopwatch request;
    request.Start();
    const TopK top = learner.PredictOne(test, i, 5);
    micros.push_back(request.Stop() * 1e6);
    if (top.ids.empty()) throw std::logic_error("PredictOne returned nothing");
  }
  r.latency_p50_us = Percentile(micros, 0.5);
  r.latency_p99_us = Percentile(micros, 0.99);
  r.latency_samples = n;
}

nlohmann::json OrNull(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }
std::optional<double> Known(double v) {
  return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

// The plateau rule's bookkeeping: the held-out metric at each epoch's end and its best so far.
class Plateau {
 public:
  Plateau(const MeasureSettings& s, Dataset held_out)
      : settings_(s), held_out_(std::move(held_out)) {}

  bool active() const { return settings_.patience > 0 && held_out_.rows() > 0; }

  // At an epoch's end: scores the held-out rows, into `details`; stopped() once `patience`
  // epochs have passed without a new best.
  void Check(const Learner& learner, double epoch, nlohmann::json& details) {
    if (!active()) return;
    const double value =
        MetricValue(ComputeMetrics(learner.Predict(held_out_, 5), held_out_), settings_.metric);
    details["holdout_" + settings_.metric] = OrNull(value);
    if (std::isnan(best_) || value > best_ + settings_.min_improvement)
      best_ = value, best_epoch_ = epoch;
    stopped_ = epoch - best_epoch_ >= settings_.patience - 1e-9;
  }

  bool stopped() const { return stopped_; }
  size_t rows() const { return held_out_.rows(); }
  double best_epoch() const { return best_epoch_; }

 private:
  const MeasureSettings& settings_;
  Dataset held_out_;
  double best_ = NAN, best_epoch_ = 0;
  bool stopped_ = false;
};

// Everything the harness does while a learner pauses: curve points, the selection probe,
// progress lines, the plateau rule's check. None of it is on the training clock.
class PauseWork {
 public:
  PauseWork(const Learner*& learner, const Dataset& train, const Dataset& test,
            const MeasureSettings& s, Plateau& plateau)
      : learner_(learner), train_(train), settings_(s), plateau_(plateau) {
    if (s.evals_per_epoch > 0) eval_sample_ = SampleRows(test, s.eval_sample, 0x5eed);
  }

  // `last`: training ends at this pause.
  void operator()(const Progress& p, double train_seconds, bool last) {
    epoch_ = p.epoch;
    if (!p.epoch_end && !last && train_seconds - last_point_ < settings_.eval_every_seconds) return;
    last_point_ = train_seconds;
    const SelectionRecall* recall = Probe();
    double value = NAN;
    if (settings_.evals_per_epoch > 0) {
      value = MetricValue(ComputeMetrics(learner_->Predict(eval_sample_, 5), eval_sample_), settings_.metric);
      curve_.push_back({train_seconds, p.epoch, Known(value),
                        recall ? Known(recall->active_at_5) : std::nullopt,
                        recall ? Known(recall->labels) : std::nullopt});
    }
    if (p.epoch_end) EndEpoch(p, recall);
    if (settings_.progress) Print(p, train_seconds, value, recall);
  }

  double epoch() const { return epoch_; }
  size_t curve_sample_rows() const { return eval_sample_.rows(); }

  const Curve& curve() const { return curve_; }
  const nlohmann::json& epochs() const { return epochs_; }
  const std::optional<SelectionRecall>& last_recall() const { return recall_; }

 private:
  // Selection quality on a fixed sample of training rows, for engines with a sparse layer.
  const SelectionRecall* Probe() {
    if (probe_rows_.rows() == 0 && settings_.recall_sample > 0) probe_rows_ = SampleRows(train_, settings_.recall_sample, 0x7ec);
    if (probe_rows_.rows() == 0) return nullptr;
    auto sets = learner_->ActiveSets(probe_rows_);
    if (!sets) return nullptr;
    recall_ = MeasureSelectionRecall(learner_->Predict(probe_rows_, 5), *sets, probe_rows_);
    return &*recall_;
  }

  void EndEpoch(const Progress& p, const SelectionRecall* recall) {
    nlohmann::json details = p.details;
    details["epoch"] = p.epoch;
    plateau_.Check(*learner_, p.epoch, details);
    details["samples"] = p.samples;
    details["mean_loss"] = OrNull(p.mean_loss);
    if (recall) {
      details["active_recall_at_5"] = recall->active_at_5;
      details["label_recall"] = recall->labels;
      details["probe_mean_active"] = recall->mean_active;
    }
    epochs_.push_back(details);
  }

  void Print(const Progress& p, double seconds, double value, const SelectionRecall* recall) const {
    std::string line = fmt::format("epoch {:.2f}: {:.1f} s", p.epoch, seconds);
    if (!std::isnan(p.mean_loss)) line += fmt::format(", loss {:.4f}", p.mean_loss);
    if (!std::isnan(value)) line += fmt::format(", {} {:.4f}", settings_.metric, value);
    if (recall) line += fmt::format(", active recall@5 {:.3f}, label recall {:.3f}", recall->active_at_5, recall->labels);
    fmt::print(stderr, "{}\n", line);
  }

  const Learner*& learner_;
  const Dataset& train_;
  const MeasureSettings& settings_;
  Plateau& plateau_;
  Dataset eval_sample_, probe_rows_;
  Curve curve_;
  nlohmann::json epochs_ = nlohmann::json::array();
  std::optional<SelectionRecall> recall_;
  double last_point_ = 0, epoch_ = 0;
};

// With the plateau rule, takes its held-out rows out of `train` (off the clock; featurized as the
// test set is, for engines that do not read text) and returns them.
Dataset HoldOut(Dataset& train, const MeasureSettings& s, const Featurizer* featurizer) {
  if (s.patience == 0 || s.holdout <= 0) return {};
  const RowSplit split = HeldOutSplit(train.rows(), s.holdout, 0x401d);
  if (split.held_out.empty() || split.train.empty())
    throw ConfigError(fmt::format("--holdout {} of {} training rows leaves no rows on one side",
                                  s.holdout, train.rows()));
  Dataset held_out = TakeRows(train, split.held_out);
  train = TakeRows(train, split.train);
  if (featurizer != nullptr && held_out.has_text())
    FeaturizeDataset(held_out, *featurizer, s.threads);
  return held_out;
}

}  // namespace

double MetricValue(const Metrics& m, const std::string& name) {
  if (name == "accuracy") return m.accuracy.value_or(m.p_at_1);
  if (name == "p_at_3") return m.p_at_3;
  if (name == "p_at_5") return m.p_at_5;
  return m.p_at_1;
}

Measurement TrainAndMeasure(const LearnerFactory& make, Dataset& train, const Dataset& test,
                            const MeasureSettings& s, const Featurizer* featurizer) {
  const Learner* current = nullptr;
  Plateau plateau(s, HoldOut(train, s, featurizer));
  PauseWork work(current, train, test, s, plateau);
  Stopwatch clock, paused;
  bool over_budget = false;
  uint64_t samples = 0;  // of whole epochs, and of the epoch the budget cut short
  PausePlan plan{s.evals_per_epoch,
                 [&](const Progress& p) {
                   const double seconds = clock.Stop();
                   paused.Start();
                   over_budget = s.train_budget_seconds > 0 && seconds >= s.train_budget_seconds;
                   if (p.epoch_end || over_budget) samples += p.samples;
                   work(p, seconds, over_budget);
                   paused.Stop();
                   clock.Start();
                 },
                 [&] { return over_budget || plateau.stopped(); }};
  clock.Start();
  if (featurizer != nullptr && train.has_text()) FeaturizeDataset(train, *featurizer, s.threads);
  std::unique_ptr<Learner> learner = make({train.num_features, train.num_labels});
  current = learner.get();
  clock.Stop();
  learner->Stage(train);
  clock.Start();
  learner->Train(train, plan);
  const double train_seconds = clock.Stop();

  Stopwatch final_eval;
  final_eval.Start();
  const Metrics m = ComputeMetrics(learner->Predict(test, 5), test);
  const double eval_seconds = final_eval.Stop();
  const TrainSettings settings = learner->settings();
  const auto& recall = work.last_recall();
  CellResult r;
  r.train_seconds = train_seconds;
  r.curve_eval_seconds = paused.seconds();
  r.eval_seconds = eval_seconds;
  r.samples_per_second = train_seconds > 0 ? static_cast<double>(samples) / train_seconds : 0.0;
  r.p_at_1 = Known(m.p_at_1);
  r.p_at_3 = Known(m.p_at_3);
  r.p_at_5 = Known(m.p_at_5);
  r.accuracy = m.accuracy ? Known(*m.accuracy) : std::nullopt;
  r.metric = s.metric;
  r.metric_value = Known(MetricValue(m, s.metric));
  r.test_rows = test.rows();
  r.curve = work.curve();
  if (!r.curve.empty()) r.curve_sample_rows = work.curve_sample_rows();
  r.epoch_details = work.epochs();
  if (settings.batch != 0) r.batch = settings.batch;
  r.lr = settings.lr;  // as the user wrote it (shortest round trip)
  r.epochs = settings.epochs;
  r.optimizer = settings.optimizer;
  r.precision = settings.precision;
  if (recall) {
    r.active_recall_at_5 = Known(recall->active_at_5);
    r.label_recall = Known(recall->labels);
  }
  r.model_bytes = learner->model_bytes();
  r.epochs_trained = work.epoch();
  if (s.train_budget_seconds > 0) r.train_budget_seconds = s.train_budget_seconds;
  if (over_budget) r.stopped_by = StopReason::kBudget;
  if (plateau.stopped() && !over_budget) r.stopped_by = StopReason::kPlateau;
  if (plateau.active()) {
    r.holdout_rows = plateau.rows();
    r.patience_epochs = s.patience;
    if (s.min_improvement > 0) r.min_improvement = s.min_improvement;
    r.best_holdout_epoch = plateau.best_epoch();
  }
  SetLatency(r, *learner, test, s.latency_samples);
  SetTarget(r, s.target);
  return {std::move(r), std::move(learner)};
}

}  // namespace sparsebench
