#include "harness/record/cell_result.h"

#include <fmt/format.h>

#include <cmath>

namespace sparsebench {

CellResult FailedCell(CellStatus status, const std::string& reason) {
  CellResult r;
  r.status = status;
  r.reason = reason;
  return r;
}

const std::vector<Column>& Columns() {
  using R = CellResult;
  static const std::vector<Column> columns = {
      {"cell_id", &R::cell_id},
      {"dataset", &R::dataset},
      {"engine", &R::name},
      {"spec", &R::spec},
      {"optimizer", &R::optimizer},
      {"precision", &R::precision},
      {"threads", &R::threads, true, false, 1e6},
      {"repeat", &R::repeat, true, false, 1e6},
      {"status", &R::status},
      {"reason", &R::reason},
      {"machine", &R::machine},
      {"instance", &R::instance},
      {"price_per_hour", &R::price_per_hour, true, true},
      {"load_seconds", &R::load_seconds},
      {"train_seconds", &R::train_seconds},
      {"time_to_target_seconds", &R::time_to_target_seconds},
      {"metric", &R::metric},
      {"metric_value", &R::metric_value},
      {"target", &R::target},
      {"target_rule", &R::target_rule},
      {"p_at_1", &R::p_at_1},
      {"p_at_3", &R::p_at_3},
      {"p_at_5", &R::p_at_5},
      {"accuracy", &R::accuracy},
      {"active_recall_at_5", &R::active_recall_at_5},
      {"label_recall", &R::label_recall},
      {"samples_per_second", &R::samples_per_second},
      {"latency_p50_us", &R::latency_p50_us},
      {"latency_p99_us", &R::latency_p99_us},
      {"peak_rss_mb", &R::peak_rss_mb},
      {"model_bytes", &R::model_bytes},
      {"test_rows", &R::test_rows},
      {"epochs", &R::epochs},
      {"epochs_trained", &R::epochs_trained},
      {"train_budget_seconds", &R::train_budget_seconds},
      {"stopped_by", &R::stopped_by},
      {"batch", &R::batch},
      {"lr", &R::lr, true, true},
      {"curve_eval_seconds", &R::curve_eval_seconds},
      {"eval_seconds", &R::eval_seconds},
      {"cell_seconds", &R::cell_seconds},
      {"cost_usd", &R::cost_usd},
      {"cost_to_target_usd", &R::cost_to_target_usd},
      {"git_commit", &R::git_commit},
      {"cell_index", &R::cell_index, false, false, 1e15},
      {"seed", &R::seed, false},
      {"latency_samples", &R::latency_samples, false},
      {"curve_sample_rows", &R::curve_sample_rows, false},
      {"holdout_rows", &R::holdout_rows, false},
      {"patience_epochs", &R::patience_epochs, false},
      {"best_holdout_epoch", &R::best_holdout_epoch, false},
      {"min_improvement", &R::min_improvement, false, true},
  };
  return columns;
}

const std::vector<std::string>& ResultColumns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Column& c : Columns()) {
      if (c.in_csv) v.emplace_back(c.name);
    }
    return v;
  }();
  return names;
}

std::string MaxText(const Column& column) {
  if (column.max <= 0) return "2^64";
  const double exponent = std::log10(column.max);
  if (exponent == std::floor(exponent)) return fmt::format("1e{:.0f}", exponent);
  return fmt::format("{:.0f}", column.max);
}

std::string ColumnText(const CellResult& r, const Column& column) {
  struct Visitor {
    const CellResult& r;
    bool exact;
    std::string operator()(std::string CellResult::*m) const { return r.*m; }
    std::string operator()(std::optional<double> CellResult::*m) const {
      if (!(r.*m)) return "";
      return exact ? fmt::format("{}", *(r.*m)) : fmt::format("{:.6g}", *(r.*m));
    }
    std::string operator()(std::optional<int64_t> CellResult::*m) const {
      return r.*m ? std::to_string(*(r.*m)) : "";
    }
    std::string operator()(std::optional<uint64_t> CellResult::*m) const {
      return r.*m ? std::to_string(*(r.*m)) : "";
    }
    std::string operator()(CellStatus CellResult::*m) const { return std::string(Text(r.*m)); }
    std::string operator()(StopReason CellResult::*m) const { return std::string(Text(r.*m)); }
  };
  return std::visit(Visitor{r, column.exact}, column.member);
}

std::optional<double> TimeToTarget(const Curve& curve, double target) {
  if (std::isnan(target)) return std::nullopt;
  for (const CurvePoint& p : curve) {
    if (p.value && *p.value >= target) return p.seconds;
  }
  return std::nullopt;
}

void SetTarget(CellResult& r, double target) {
  r.target = std::isnan(target) ? std::nullopt : std::optional<double>(target);
  r.time_to_target_seconds = TimeToTarget(r.curve, target);
  SetCosts(r);
}

void SetCosts(CellResult& r) {
  auto cost = [&](const std::optional<double>& seconds) -> std::optional<double> {
    if (!r.ok() || !r.price_per_hour || !seconds) return std::nullopt;
    return *seconds / 3600.0 * *r.price_per_hour;
  };
  r.cost_usd = cost(r.train_seconds);
  r.cost_to_target_usd = cost(r.time_to_target_seconds);
}

}  // namespace sparsebench
