#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "harness/record/cell_status.h"

namespace sparsebench {

// One point of a time-to-accuracy curve (any figure may be missing in a file from elsewhere).
struct CurvePoint {
  std::optional<double> seconds{}, epoch{}, value{}, active_recall_at_5{}, label_recall{};
  bool usable() const { return seconds && value; }  // a time and a metric to plot or compare
};
using Curve = std::vector<CurvePoint>;

// The result of one matrix cell: what the child measured (`sparsebench train`), what the
// runner adds (identity, machine, price), and what is derived over a whole run (target, time
// to target, costs). A failed cell has a status, a reason and its identity; the rest is empty.
// Text fields are "" when missing. Every file format reads and writes this record through the
// table of Columns() (cell_result.cc); harness/README.md documents each column.
struct CellResult {
  std::string cell_id, dataset;
  std::string name;  // the matrix's label of the engine ("engine" in the files)
  std::string spec;  // the canonical spec the engine trained with
  std::string optimizer;
  std::string precision;  // the number formats it trained in (TrainSettings::precision)
  std::optional<int64_t> threads, repeat;
  CellStatus status = CellStatus::kNone;
  std::string reason, machine, instance;
  std::optional<double> price_per_hour, load_seconds, train_seconds, time_to_target_seconds;
  std::string metric;
  std::optional<double> metric_value, target;
  std::string target_rule;
  std::optional<double> p_at_1, p_at_3, p_at_5, accuracy, active_recall_at_5, label_recall,
      samples_per_second, latency_p50_us, latency_p99_us, peak_rss_mb;
  std::optional<uint64_t> model_bytes, epochs;
  std::optional<uint64_t> test_rows;  // the rows the final metric was computed over
  std::optional<double> epochs_trained, train_budget_seconds;
  StopReason stopped_by = StopReason::kEpochs;
  // The plateau rule: training rows held out and scored at each epoch's end, the epochs
  // without a new best that stop training, and the epoch of the best.
  std::optional<uint64_t> holdout_rows, patience_epochs;
  std::optional<double> best_holdout_epoch, min_improvement;
  std::optional<uint64_t> batch;
  std::optional<double> lr, curve_eval_seconds, eval_seconds, cell_seconds, cost_usd,
      cost_to_target_usd;
  std::string git_commit;
  // In the JSON files only.
  std::optional<int64_t> cell_index;  // the cell's place in its matrix
  std::optional<uint64_t> seed, latency_samples;
  std::optional<uint64_t> curve_sample_rows;  // the fixed test sample every curve point scores
  Curve curve;
  nlohmann::json epoch_details = nlohmann::json::array();  // the engine's own figures, per epoch
  std::map<std::string, std::string> context;              // the engine's build and threading

  bool ok() const { return status == CellStatus::kOk; }
};

// A cell that ended without its figures: its status and why.
CellResult FailedCell(CellStatus status, const std::string& reason);

// One field of CellResult under its name in the files.
struct Column {
  using Member =
      std::variant<std::string CellResult::*, std::optional<double> CellResult::*,
                   std::optional<int64_t> CellResult::*, std::optional<uint64_t> CellResult::*,
                   CellStatus CellResult::*, StopReason CellResult::*>;
  std::string_view name;
  Member member;
  bool in_csv = true;  // a column of results.csv (in table order); else in the JSON files only
  bool exact = false;  // a setting a user typed: every digit; measurements keep 6 significant
  double max = 0;      // whole numbers: the largest accepted (0: any)
};
const std::vector<Column>& Columns();

// The largest whole number a column accepts, as its errors say it ("1e6", "2^64").
std::string MaxText(const Column& column);

// The names of results.csv's columns, in order.
const std::vector<std::string>& ResultColumns();

// A number column as results.csv writes it ("" when missing).
std::string ColumnText(const CellResult& r, const Column& column);

// Training seconds at the first curve point whose value reaches `target`; nothing when none
// does or the target is NaN. The one definition of time to target.
std::optional<double> TimeToTarget(const Curve& curve, double target);

// Sets the target (NaN: none), the time to it from the curve, and the costs.
void SetTarget(CellResult& r, double target);

// cost_usd and cost_to_target_usd: seconds × price_per_hour, for an ok row with a price.
void SetCosts(CellResult& r);

}  // namespace sparsebench
