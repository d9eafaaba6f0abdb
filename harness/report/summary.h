#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/api/engine_family.h"
#include "harness/record/cell_result.h"

namespace sparsebench {

// Median and range of one column over a group's repeats (NaN when no repeat has it).
struct Stat {
  size_t n = 0;
  double median = NAN, min = NAN, max = NAN;
  std::vector<double> values;
};
Stat Summarize(std::vector<double> values);

// The repeats of one engine on one dataset, machine and thread count.
struct Group {
  std::string dataset, engine, spec, machine, metric_name;
  int threads = 0;
  size_t runs = 0, ok = 0;
  std::string failure;  // status and reason of a failed repeat
  std::string optimizer;
  std::string precision;  // "" in results written before it was recorded
  bool dense = false;     // a dense baseline (EngineFamily::dense_baseline)
  bool external = false;  // run over the external-engine protocol (EngineFamily::external)
  // What the registry says of the spec, asked once when the rows are grouped.
  SpecFacts facts;
  bool ours = false;        // our engine (EngineFamily::ours)
  bool needs_text = false;  // its family trains on raw text only: a row of it marks text data
  bool reads_text = false;  // it trains on raw text, without the shared featurizer
  std::string weak_note;    // why it may score below half the best row on the metric, if known
  // Time to target over every ok repeat: one that never reached the target counts as +inf, so
  // the median is "not reached" when most missed; `missed` says how many did.
  Stat train_seconds, metric, time_to_target, samples_per_second, latency_p50, latency_p99, peak_rss_mb, cost,
      cost_to_target, active_recall, label_recall;
  size_t missed = 0;
  size_t budget_stops = 0;   // ok repeats whose training the budget ended
  size_t plateau_stops = 0;  // ok repeats that the plateau rule ended
  // The plateau rule as the first ok repeat ran it (0: none).
  uint64_t holdout_rows = 0, patience_epochs = 0;
  double min_improvement = 0;
  uint64_t test_rows =
      0;  // the fewest test rows an ok repeat's metric was computed over (0: not recorded)
  int autotune_finished = -1;  // the fewest trials an autotune search finished (-1: no search)
  // The first repeat's autotune split (context autotune_budget) and the settings it chose.
  std::string autotune_budget, tuned_args;
  Stat epochs_trained;
  // The fastest dense baseline's time to target / this one's, among groups on the same
  // machine and threads only. A lower bound when a dense baseline that its budget stopped
  // short of the target trained for less time than any dense baseline took to reach it
  // ("> N×"); NaN with `speedup_note` saying why when there is no ratio.
  double speedup = NAN;
  bool speedup_lower_bound = false;
  std::string speedup_note;
  // Equal time: the earliest time to target of any group on the same machine and threads,
  // and this group's curve metric at that moment (the last point at or before it; median
  // over repeats; NaN when no point is that early).
  double equal_time_seconds = NAN, metric_at_equal_time = NAN;
  std::vector<Curve> curves;  // every ok repeat's, in order
  // The engine's own phase timers (its epoch details' "seconds_NAME", by NAME), summed over the
  // epochs of the first ok repeat that has them; empty when the engine keeps none.
  std::map<std::string, double> phase_seconds;
  // An external engine's own figures (its context's "engine_*" keys: protocol, CPU by phase)
  // from its first ok repeat, and its repeats the referee flagged for work off the clock
  // (tools/engines/README.md), each "repeat N: what looked like learning".
  std::map<std::string, std::string> engine_context;
  std::vector<std::string> off_clock;
  double phase_repeat_train_seconds = NAN;  // that repeat's training seconds
};

// Groups whose seconds compare: the same machine and thread count.
bool SameMachineAndThreads(const Group& a, const Group& b);

// The value of the last usable curve point at or before `seconds`; NaN when there is none.
double MetricAt(const Curve& curve, double seconds);

struct DatasetGroups {
  std::string dataset, metric, target_rule;
  double target = NAN;
  std::vector<Group> groups;
  // The rows of the fixed test sample the curves score, as any ok cell recorded it (one matrix,
  // one sample; 0: not recorded).
  uint64_t curve_sample_rows = 0;
};

// Rows grouped by dataset (in order of appearance), then machine, engine and threads.
std::vector<DatasetGroups> GroupRows(const std::vector<CellResult>& rows,
                                     const EngineRegistry& engines);

}  // namespace sparsebench
