#pragma once

#include <string>
#include <vector>

#include "harness/history/series.h"

namespace sparsebench {

// How the newest point is judged against its history.
struct CheckOptions {
  double max_slowdown = 0.10;    // a timed change smaller than this is never a regression
  double max_metric_drop = 3;    // percentage points
  double z = 3;                  // against its segment: standard deviations above its mean
  double noise_floor = 0.03;     // the segment's spread counts as at least this share of its mean
  double alpha = 0.05;           // against its parent's repeats: Mann-Whitney p below this
  size_t min_repeats = 4;        // repeats on each side for the parent test
  size_t min_segment = 3;        // points of a segment for its test
  size_t drift_window = 20;      // the last points a drift is fitted over
  size_t drift_min_points = 10;  // fewer points since the segment's start: no drift test
  double drift_alpha = 0.001;    // the drift's slope p-value must be below this
  // The runs were measured again after a suspect check: a point slower than its segment but
  // not than its parent, whose own point was within its segment, is the machine and is noted.
  bool measured_again = false;
  ChangePointOptions change;
};

enum class Verdict { kOk, kNew, kNote, kSuspect, kRegression };
const char* VerdictText(Verdict v);

struct Finding {
  std::string cell, what;  // what: seconds, ratio, drift, metric, a counter, status
  Verdict verdict = Verdict::kOk;
  std::string detail;
  double change = 0;  // timed findings: the move against the segment (0.1: 10% slower)
};

// One cell's newest point against its series (SeriesOf). `timed_gate`: the series is this
// machine's, so its times may fail the check; otherwise timed moves are only noted.
std::vector<Finding> CheckCell(const std::string& cell, const std::vector<HistoryPoint>& series,
                               const HistoryPoint& now, Measure measure, bool timed_gate,
                               const std::vector<Annotation>& annotations,
                               const CheckOptions& options);

struct CheckResult {
  std::string machine, machine_name, commit;
  bool own_history = false;  // the store holds this machine's series
  std::vector<Finding> findings;
  int ExitCode() const;  // 0 ok, 1 a regression, 2 a suspect and no regression
};

// The records of one commit on one machine (one or more runs) against the store: each cell
// against this machine's series by its seconds, or, where this machine has none, against the
// other machines' by its ratio to the reference engine (noted, not gated). Metrics, status and
// exact counters are gated either way. DataError when the records mix commits or machines.
// A machine that ran slower as a whole (another VM of the same hardware, a busy neighbour) is
// not a regression: a cell slower in seconds whose ratio to the reference engine held is
// noted, and so is the reference engine when the other engines' median slowdown matches.
CheckResult CheckRecords(const std::vector<HistoryRecord>& now, const HistoryStore& store,
                         const CheckOptions& options);
// The same against records at hand: `own` this machine's, `others` the other machines'.
// `now` is not empty and holds one commit on one machine.
CheckResult CheckRecords(const std::vector<HistoryRecord>& now,
                         const std::vector<HistoryRecord>& own,
                         const std::vector<HistoryRecord>& others,
                         const std::vector<Annotation>& annotations, const CheckOptions& options);

// The check as a table and a closing line.
std::string CheckText(const CheckResult& result);

}  // namespace sparsebench
