#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/api/engine_family.h"
#include "harness/history/check.h"
#include "harness/history/store.h"

namespace sparsebench {

// What the history page and its markdown summary show, computed once from the store.

// A commit on a machine's axis.
struct PageCommit {
  std::string id, subject, date;
  std::string run_date;  // when it was first measured on this machine
};

// A line over a chart: a change point found in the series, or a segment start that an
// annotation or a change of settings forced; or, over the counts, a change of exact counts.
struct PageMark {
  size_t x = 0;      // the commit's index on the machine's axis
  std::string kind;  // "change", "annotated", "settings", "counts"
  std::string commit, label, title;
};

// A row of the table of changes: where a cell's series moved between two commits.
struct PageChange {
  std::string machine, cell, measure, kind;  // kind: "change point", "annotated", "new settings"
  std::string from_commit, to_commit;        // the last point before it and the first after
  size_t x = 0;                              // to_commit's index on the machine's axis
  double before = 0, after = 0, spread_before = 0, spread_after = 0;  // segment means, std devs
  double p = 0;               // the change point's t-test; NaN for a forced start
  bool acknowledged = false;  // annotated, or the settings changed
  std::string reason;         // the annotation's
  double change() const { return after / before - 1; }
};

// One cell's series on one machine: per point, its commit's index on the axis, the median of
// its repeats with their range, its segment's mean, and its speed-up over the fastest dense row.
struct PageCell {
  std::string id, measure, caption;
  std::vector<size_t> x;
  std::vector<double> value, lo, hi, fit, speedup, speedup_lo, speedup_hi;
  std::vector<size_t> repeats;
  std::vector<std::string> status;  // "ok", or the failure and its reason
  std::vector<PageMark> marks;
  // Exact counts per sample (median over seeds), one row per counter; empty where none.
  std::vector<std::string> counter_names;
  std::vector<std::vector<double>> per_sample;
  std::vector<PageMark> count_marks;
};

struct PageMachine {
  std::string key, name;
  std::vector<PageCommit> commits;  // oldest first: the charts' axis
  std::vector<PageCell> cells;
  CheckResult latest;  // the newest commit against the commits before it
};

struct HistoryPage {
  std::string store;
  std::vector<PageMachine> machines;
  std::vector<PageChange> changes;
  int ExitCode() const;  // the worst of the machines' checks: 0 ok, 1 regression, 2 suspect
};

struct PageOptions {
  std::string machine;     // "": every machine in the store
  std::string cell = "*";  // a glob over dataset/engine/tN
  CheckOptions check;      // its change-point options find the change points too
};

// Each of `commits`' subject line, where known (from git); asked once per page.
using SubjectsOf =
    std::function<std::map<std::string, std::string>(const std::vector<std::string>& commits)>;

// `subjects` may be empty: the page then shows no subjects.
HistoryPage BuildPage(const HistoryStore& store, const EngineRegistry& engines,
                      const SubjectsOf& subjects, const PageOptions& options);

// The page's charts as the JSON its script reads.
std::string PageChartsJson(const HistoryPage& page);

}  // namespace sparsebench
