#include "harness/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace sparsebench {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

Dataset EvalSample(const Dataset& test, uint32_t rows) {
  std::vector<uint32_t> order = SeededPermutation(test.rows(), 0x5eed);
  order.resize(std::min<size_t>(rows, order.size()));
  std::sort(order.begin(), order.end());
  return TakeRows(test, order);
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return NAN;
  const size_t at = std::min(values.size() - 1, static_cast<size_t>(q * static_cast<double>(values.size())));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

nlohmann::json Latency(const Learner& learner, const Dataset& test, uint32_t samples) {
  if (samples == 0 || !learner.measures_latency()) return {{"latency_p50_us", nullptr}, {"latency_p99_us", nullptr}};
  std::vector<double> micros;
  const bool text = learner.reads_text() && test.has_text();  // featurize + forward
  const size_t n = std::min<size_t>(samples, test.rows());
  for (size_t i = 0; i < n; ++i) {
    const auto start = Clock::now();
    const TopK top = text ? learner.PredictText(test.text.at(i), 5) : learner.PredictOne(test.row(i), 5);
    micros.push_back(Since(start) * 1e6);
    if (top.ids.empty()) throw std::logic_error("PredictOne returned nothing");
  }
  return {{"latency_p50_us", Percentile(micros, 0.5)}, {"latency_p99_us", Percentile(micros, 0.99)},
          {"latency_samples", n}};
}

nlohmann::json OrNull(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

double MetricValue(const Metrics& m, const std::string& name) {
  if (name == "accuracy") return m.accuracy.value_or(m.p_at_1);
  if (name == "p_at_3") return m.p_at_3;
  if (name == "p_at_5") return m.p_at_5;
  return m.p_at_1;
}

nlohmann::json TrainAndMeasure(Learner& learner, const Dataset& train, const Dataset& test,
                               const MeasureSettings& s) {
  const Dataset sample = EvalSample(test, s.eval_sample);
  double train_seconds = 0, eval_seconds = 0;
  uint64_t samples = 0;
  nlohmann::json curve = nlohmann::json::array(), epoch_details = nlohmann::json::array();
  auto evaluate = [&](double seconds, double epoch) {
    const auto start = Clock::now();
    const double value = MetricValue(ComputeMetrics(learner.Predict(sample, 5), sample), s.metric);
    eval_seconds += Since(start);
    curve.push_back({seconds, epoch, value});
    if (s.progress) fmt::print(stderr, "epoch {:.2f}: {} {:.4f} at {:.1f} s\n", epoch, s.metric, value, seconds);
  };
  const uint32_t passes = learner.runs_own_epochs() ? 1 : s.epochs;
  for (uint32_t epoch = 0; epoch < passes; ++epoch) {
    BatchHook hook;
    if (s.evals_per_epoch > 0) {  // engines that run their own passes may ignore it
      const uint64_t batches = (train.rows() + s.batch - 1) / s.batch;
      hook.interval = std::max<uint64_t>(1, batches / s.evals_per_epoch);
      hook.call = [&, batches](uint64_t done, double seconds) {
        if (done < batches) evaluate(train_seconds + seconds, epoch + static_cast<double>(done) / static_cast<double>(batches));
      };
    }
    const EpochReport report = learner.TrainEpoch(train, hook);
    train_seconds += report.seconds;
    samples += report.samples;
    epoch_details.push_back(report.details);
    if (s.progress) fmt::print(stderr, "epoch {}/{}: {:.2f} s, loss {:.4f}\n", epoch + 1, passes, report.seconds, report.mean_loss);
    if (s.evals_per_epoch > 0) evaluate(train_seconds, epoch + 1.0);
  }
  const auto eval_start = Clock::now();
  const Metrics m = ComputeMetrics(learner.Predict(test, 5), test);
  const double final_eval_seconds = Since(eval_start);
  nlohmann::json time_to_target = nullptr;
  for (const auto& point : curve) {
    if (point[2].get<double>() >= s.target) {
      time_to_target = point[0];
      break;
    }
  }
  nlohmann::json result = {{"train_seconds", train_seconds},
                           {"curve_eval_seconds", eval_seconds},
                           {"eval_seconds", final_eval_seconds},
                           {"samples_per_second", train_seconds > 0 ? static_cast<double>(samples) / train_seconds : 0.0},
                           {"p_at_1", m.p_at_1},
                           {"p_at_3", m.p_at_3},
                           {"p_at_5", m.p_at_5},
                           {"accuracy", OrNull(m.accuracy)},
                           {"metric", s.metric},
                           {"metric_value", MetricValue(m, s.metric)},
                           {"target", s.target},
                           {"time_to_target_seconds", time_to_target},
                           {"curve", curve},
                           {"epoch_details", epoch_details},
                           {"model_bytes", learner.model_bytes()}};
  result.update(Latency(learner, test, s.latency_samples));
  return result;
}

}  // namespace sparsebench
