#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/history/change_points.h"
#include "harness/history/store.h"

namespace sparsebench {

// One commit of one cell on one machine: the records of that commit and settings, merged
// (repeats of several runs gathered).
struct HistoryPoint {
  std::string commit, parent, commit_date, run_date, settings_hash, build, machine;
  std::string reference;  // the engine `ratio` divides by
  std::string status = "ok", reason;
  std::vector<double> seconds, ratio, metric;
  std::vector<SeedCounts> counters;  // each repeat's exact work counts at its seed
  // A new segment starts here: the first point, a change of settings, or an annotation.
  bool starts_segment = false;
  std::string annotation;  // the reason of the annotation that starts it

  bool ok() const { return status == "ok"; }
};

// A commit as tables print it: its first 8 hex digits.
std::string ShortCommit(const std::string& commit);

// Which figure of a point a timed series follows.
enum class Measure { kSeconds, kRatio };
double ValueOf(const HistoryPoint& p, Measure m);  // the median over repeats; NaN when none
const char* MeasureName(Measure m);

// The points of `cell` among `records` (one per commit and settings), ordered by commit date
// and then run date, with the segment starts that annotations and settings changes force.
std::vector<HistoryPoint> SeriesOf(const std::vector<HistoryRecord>& records,
                                   const std::string& cell,
                                   const std::vector<Annotation>& annotations);

// A cell's parts: "dataset/engine/tN" as dataset, engine and threads ("N"); empty where the
// id has fewer parts.
struct CellParts {
  std::string dataset, engine, threads;
};
CellParts PartsOf(const std::string& cell);

// Whether a cell is the reference engine's own, whose ratio is always 1.
bool IsReferenceCell(const std::string& cell, const std::string& reference);

// The cells of `records`, sorted.
std::vector<std::string> CellsOf(const std::vector<HistoryRecord>& records);

// Change points of the ok points' values within each forced segment: indices into `points`.
std::vector<ChangePoint> SeriesChangePoints(const std::vector<HistoryPoint>& points, Measure m,
                                            const ChangePointOptions& options);

// The exact counts of two points at the seeds both trained with: each counter both counted
// that differs, summed over those seeds with the samples they trained.
struct CountChange {
  std::string key;
  uint64_t before = 0, after = 0, samples_before = 0, samples_after = 0;
};
struct CountComparison {
  size_t seeds = 0;  // seeds in common (none: nothing compared)
  std::vector<CountChange> changes;
  // Counters only one side counted (an engine that counts something new, or no longer): not a
  // change of its work, so not compared.
  std::vector<std::string> added, dropped;
};
CountComparison CompareCounts(const HistoryPoint& before, const HistoryPoint& after);

// A seed whose repeats in one point counted differently: the engine is not deterministic.
bool CountsDisagree(const HistoryPoint& p);

// Merges records into points (exposed for the check: the run under test is one point).
HistoryPoint PointOf(const std::vector<const HistoryRecord*>& records);

}  // namespace sparsebench
