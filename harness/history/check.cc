#include "harness/history/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <set>

#include "datasets/data_error.h"
#include "harness/history/stats.h"
#include "harness/report/compare.h"

namespace sparsebench {
namespace {

std::string Percent(double change) { return fmt::format("{:+.1f}%", 100 * change); }

// The point the newest is compared with: the same commit measured before, else its parent,
// else the latest.
size_t ReferenceOf(const std::vector<HistoryPoint>& series, const HistoryPoint& now) {
  for (size_t i = series.size(); i-- > 0;) {
    if (series[i].commit == now.commit) return i;
  }
  for (size_t i = series.size(); i-- > 0;) {
    if (!now.parent.empty() && series[i].commit == now.parent) return i;
  }
  return series.size() - 1;
}

// The first point of the segment that holds `reference`: after the last forced start or change
// point at or before it.
size_t SegmentStart(const std::vector<HistoryPoint>& series, size_t reference, Measure m,
                    const CheckOptions& o, bool forced_only) {
  size_t start = 0;
  for (size_t i = 0; i <= reference; ++i) {
    if (series[i].starts_segment) start = i;
  }
  if (forced_only) return start;
  const std::vector<HistoryPoint> upto(series.begin(),
                                       series.begin() + static_cast<std::ptrdiff_t>(reference) + 1);
  for (const ChangePoint& c : SeriesChangePoints(upto, m, o.change))
    start = std::max(start, c.index);
  return start;
}

std::vector<double> ValuesOf(const std::vector<HistoryPoint>& series, size_t begin, size_t end,
                             Measure m) {
  std::vector<double> values;
  for (size_t i = begin; i < end; ++i) {
    const double v = ValueOf(series[i], m);
    if (series[i].ok() && std::isfinite(v)) values.push_back(v);
  }
  return values;
}

const std::vector<double>& Repeats(const HistoryPoint& p, Measure m) {
  return m == Measure::kSeconds ? p.seconds : p.ratio;
}

// A segment's mean and spread, the spread at least the noise floor's share of the mean.
struct Spread {
  double mean, sd;
};
Spread SpreadOf(const std::vector<double>& values, const CheckOptions& o) {
  const double mean = Mean(values);
  return {mean, std::max(StdDev(values), o.noise_floor * mean)};
}

// Whether the point at `index` was slower than the segment before it (unknown: yes).
bool OutOfItsSegment(const std::vector<HistoryPoint>& series, size_t index, Measure m,
                     const CheckOptions& o) {
  const std::vector<double> before =
      ValuesOf(series, SegmentStart(series, index, m, o, false), index, m);
  if (before.size() < o.min_segment) return true;
  const auto [mean, sd] = SpreadOf(before, o);
  const double value = ValueOf(series[index], m);
  return !std::isfinite(value) || (value / mean - 1 > o.max_slowdown && (value - mean) / sd > o.z);
}

Finding Timed(const std::string& cell, const std::vector<HistoryPoint>& series, size_t reference,
              const HistoryPoint& now, Measure m, bool gate, const CheckOptions& o) {
  Finding f{cell, MeasureName(m), Verdict::kOk, ""};
  const double value = ValueOf(now, m);
  const std::vector<double> segment =
      ValuesOf(series, SegmentStart(series, reference, m, o, false), reference + 1, m);
  if (!std::isfinite(value) || segment.empty()) {
    f.verdict = Verdict::kNew;
    f.detail = fmt::format("no {} to compare", MeasureName(m));
    return f;
  }
  const auto [mean, sd] = SpreadOf(segment, o);
  const double change = value / mean - 1, z = (value - mean) / sd;
  f.change = change;
  const HistoryPoint& ref = series[reference];
  const bool parent_testable =
      Repeats(now, m).size() >= o.min_repeats && Repeats(ref, m).size() >= o.min_repeats;
  const double p = parent_testable ? MannWhitneyP(Repeats(now, m), Repeats(ref, m)) : NAN;
  const bool segment_testable = segment.size() >= o.min_segment;
  const bool slower_than_segment = segment_testable && z > o.z;
  const bool slower_than_parent = parent_testable && p < o.alpha && value > ValueOf(ref, m);
  f.detail = fmt::format("{:.4g} against {:.4g} over {} point(s) ({}, z {:.1f}); {} {}: {}", value,
                         mean, segment.size(), Percent(change), z,
                         ref.commit == now.commit ? "same commit" : "vs", ShortCommit(ref.commit),
                         parent_testable ? fmt::format("p {:.3f}", p) : "too few repeats");
  // The segment decides; the parent's repeats confirm. Where they disagree, or only the
  // parent can be asked, the point is suspect: measured again before anything fails.
  if (change > o.max_slowdown) {
    if (segment_testable) {
      if (slower_than_segment && (!parent_testable || slower_than_parent)) {
        f.verdict = Verdict::kRegression;
      } else if (slower_than_segment) {
        f.verdict = Verdict::kSuspect;
        if (o.measured_again && !OutOfItsSegment(series, reference, m, o)) {
          f.verdict = Verdict::kNote;
          f.detail =
              fmt::format(
                  "measured again and no slower than {}, which was within its own segment: the "
                  "machine, not this commit: ",
                  ShortCommit(ref.commit)) +
              f.detail;
        }
      }
    } else if (slower_than_parent || !parent_testable) {
      f.verdict = Verdict::kSuspect;
    }
  } else if (change < -o.max_slowdown && segment_testable && z < -o.z) {
    f.verdict = Verdict::kNote;
    f.detail = "faster: " + f.detail;
  }
  if (!gate && (f.verdict == Verdict::kRegression || f.verdict == Verdict::kSuspect)) {
    f.verdict = Verdict::kNote;
    f.detail = "moved on another machine's history (not gated): " + f.detail;
  }
  return f;
}

// A slow drift: each step within the noise, the line through the last points rising.
std::optional<Finding> Drift(const std::string& cell, const std::vector<HistoryPoint>& series,
                             size_t reference, const HistoryPoint& now, Measure m,
                             const CheckOptions& o) {
  std::vector<double> values =
      ValuesOf(series, SegmentStart(series, reference, m, o, true), reference + 1, m);
  values.push_back(ValueOf(now, m));
  if (values.size() > o.drift_window)
    values.erase(values.begin(), values.end() - static_cast<std::ptrdiff_t>(o.drift_window));
  if (values.size() < o.drift_min_points || !std::isfinite(values.back())) return std::nullopt;
  const LinearFit fit = FitLine(values);
  const double total = fit.last / fit.first - 1;
  if (!(fit.p < o.drift_alpha && total > o.max_slowdown)) return std::nullopt;
  return Finding{cell, "drift", Verdict::kRegression,
                 fmt::format("{} over the last {} points ({:+.2f}% a point, p {:.1e})",
                             Percent(total), values.size(), 100 * fit.slope / fit.first, fit.p),
                 total};
}

std::optional<Finding> Metric(const std::string& cell, const HistoryPoint& ref,
                              const HistoryPoint& now, const CheckOptions& o) {
  if (ref.metric.empty() || now.metric.empty()) return std::nullopt;
  const double before = Median(ref.metric), after = Median(now.metric);
  const double drop = 100 * (before - after);
  return Finding{cell, "metric", drop > o.max_metric_drop ? Verdict::kRegression : Verdict::kOk,
                 fmt::format("{:.4f} against {:.4f} at {} ({:+.2f} points)", after, before,
                             ShortCommit(ref.commit), -drop)};
}

// A count's change: one decimal, or two significant digits when smaller than 0.1%.
std::string CountPercent(double change) {
  return std::abs(change) >= 0.001 ? Percent(change) : fmt::format("{:+.2g}%", 100 * change);
}

double PerSample(uint64_t count, uint64_t samples) {
  return samples == 0 ? static_cast<double>(count)
                      : static_cast<double>(count) / static_cast<double>(samples);
}

std::vector<Finding> Counters(const std::string& cell, const HistoryPoint& ref,
                              const HistoryPoint& now) {
  std::vector<Finding> found;
  if (CountsDisagree(now)) {
    found.push_back({cell, "counters", Verdict::kRegression,
                     "repeats at the same seed counted different work: the engine is no longer "
                     "deterministic at a seed"});
  }
  if (ref.counters.empty() || now.counters.empty()) return found;
  const CountComparison compared = CompareCounts(ref, now);
  if (ref.build != now.build || compared.seeds == 0) {
    if (!compared.changes.empty() || compared.seeds == 0) {
      found.push_back(
          {cell, "counters", Verdict::kNote,
           ref.build != now.build
               ? fmt::format("not compared: {} was built otherwise ({} / {})",
                             ShortCommit(ref.commit), ref.build, now.build)
               : fmt::format("not compared: no seed in common with {}", ShortCommit(ref.commit))});
    }
    return found;
  }
  if (compared.changes.empty()) {
    found.push_back(
        {cell, "counters", Verdict::kOk,
         fmt::format("the same at {} seed(s) as at {}", compared.seeds, ShortCommit(ref.commit))});
  }
  for (const CountChange& c : compared.changes) {
    const double a = PerSample(c.before, c.samples_before), b = PerSample(c.after, c.samples_after);
    found.push_back(
        {cell, c.key, Verdict::kRegression,
         fmt::format("{:.6g} → {:.6g} per sample ({}; {} → {} in all over {} seed(s)) since {}", a,
                     b, a > 0 ? CountPercent(b / a - 1) : "from 0", c.before, c.after,
                     compared.seeds, ShortCommit(ref.commit))});
  }
  for (const std::string& key : compared.added) {
    found.push_back(
        {cell, key, Verdict::kNote,
         fmt::format("counted from here on ({} did not count it)", ShortCommit(ref.commit))});
  }
  for (const std::string& key : compared.dropped) {
    found.push_back({cell, key, Verdict::kNote,
                     fmt::format("no longer counted ({} counted it)", ShortCommit(ref.commit))});
  }
  return found;
}

bool Failing(const Finding& f) {
  return f.verdict == Verdict::kRegression || f.verdict == Verdict::kSuspect;
}

bool IsTimed(const Finding& f) { return f.what == "seconds" || f.what == "drift"; }

// Slower in seconds, but its ratio to the reference engine held: the machine, not the cell.
void ExcuseByRatio(const std::vector<Finding>& by_ratio, std::vector<Finding>& found) {
  for (Finding& f : found) {
    if (!IsTimed(f) || !Failing(f)) continue;
    const std::string same = f.what == "seconds" ? "ratio" : "drift";
    const bool ratio_moved = std::any_of(by_ratio.begin(), by_ratio.end(), [&](const Finding& r) {
      return r.what == same && Failing(r);
    });
    if (ratio_moved) continue;
    f.verdict = Verdict::kNote;
    f.detail = "the machine ran slower; the ratio to the reference engine held: " + f.detail;
  }
}

// The reference engine slower while the other engines' median slowdown is past the bound too:
// the machine.
void ExcuseTheReference(const std::vector<HistoryRecord>& now, std::vector<Finding>& found,
                        const CheckOptions& o) {
  std::set<std::string> references;
  for (const HistoryRecord& r : now) {
    if (IsReferenceCell(r.cell, r.reference)) references.insert(r.cell);
  }
  std::vector<double> others;
  for (const Finding& f : found) {
    if (f.what == "seconds" && !references.contains(f.cell)) others.push_back(f.change);
  }
  if (others.empty() || !(Median(others) > o.max_slowdown)) return;
  for (Finding& f : found) {
    if (f.what != "seconds" || !Failing(f) || !references.contains(f.cell)) continue;
    f.verdict = Verdict::kNote;
    f.detail = fmt::format("the machine ran slower (the other engines' median {}): ",
                           Percent(Median(others))) +
               f.detail;
  }
}

}  // namespace

const char* VerdictText(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kNew:
      return "new";
    case Verdict::kNote:
      return "note";
    case Verdict::kSuspect:
      return "SUSPECT";
    case Verdict::kRegression:
      return "REGRESSION";
  }
  return "?";
}

std::vector<Finding> CheckCell(const std::string& cell, const std::vector<HistoryPoint>& all,
                               const HistoryPoint& now, Measure m, bool gate,
                               const std::vector<Annotation>& annotations, const CheckOptions& o) {
  std::vector<HistoryPoint> series;
  for (const HistoryPoint& p : all) {
    if (p.settings_hash == now.settings_hash) series.push_back(p);
  }
  if (series.empty()) {
    return {{cell, "history", Verdict::kNew,
             all.empty() ? "no history" : "no history at these settings: a new series starts"}};
  }
  const size_t reference = ReferenceOf(series, now);
  const HistoryPoint& ref = series[reference];
  if (ref.commit != now.commit) {
    for (const Annotation& a : annotations) {
      if (a.Matches(now.commit, cell)) {
        return {{cell, "annotated", Verdict::kNote,
                 fmt::format("a new segment starts here: {}", a.reason)}};
      }
    }
  }
  if (!now.ok()) {
    return {
        {cell, "status", ref.ok() ? Verdict::kRegression : Verdict::kNote,
         fmt::format("{}: {}{}", now.status, now.reason,
                     ref.ok() ? "" : fmt::format(" (failed at {} too)", ShortCommit(ref.commit)))}};
  }
  std::vector<Finding> found = Counters(cell, ref, now);
  if (auto metric = Metric(cell, ref, now, o)) found.push_back(*metric);
  found.push_back(Timed(cell, series, reference, now, m, gate, o));
  if (gate) {
    if (auto drift = Drift(cell, series, reference, now, m, o)) found.push_back(*drift);
  }
  return found;
}

int CheckResult::ExitCode() const {
  bool suspect = false;
  for (const Finding& f : findings) {
    if (f.verdict == Verdict::kRegression) return 1;
    suspect = suspect || f.verdict == Verdict::kSuspect;
  }
  return suspect ? 2 : 0;
}

CheckResult CheckRecords(const std::vector<HistoryRecord>& now, const HistoryStore& store,
                         const CheckOptions& o) {
  if (now.empty()) throw DataError(store.dir(), 0, "history check: no records to check");
  for (const HistoryRecord& r : now) {
    if (r.machine != now.front().machine || r.commit != now.front().commit) {
      throw DataError(store.dir(), 0,
                      "history check: the runs mix commits or machines (" + ShortCommit(r.commit) +
                          " on " + r.machine + ", " + ShortCommit(now.front().commit) + " on " +
                          now.front().machine + ")");
    }
  }
  std::vector<HistoryRecord> others;
  for (const std::string& machine : store.Machines()) {
    if (machine == now.front().machine) continue;
    for (HistoryRecord& r : store.Records(machine)) others.push_back(std::move(r));
  }
  return CheckRecords(now, store.Records(now.front().machine), others, store.Annotations(), o);
}

CheckResult CheckRecords(const std::vector<HistoryRecord>& now,
                         const std::vector<HistoryRecord>& own,
                         const std::vector<HistoryRecord>& others,
                         const std::vector<Annotation>& annotations, const CheckOptions& o) {
  assert(!now.empty());
  CheckResult result;
  result.machine = now.front().machine;
  result.machine_name = now.front().machine_name;
  result.commit = now.front().commit;
  result.own_history = !own.empty();
  for (const std::string& cell : CellsOf(now)) {
    std::vector<const HistoryRecord*> mine;
    for (const HistoryRecord& r : now) {
      if (r.cell == cell) mine.push_back(&r);
    }
    const HistoryPoint point = PointOf(mine);
    const std::vector<HistoryPoint> series = SeriesOf(own, cell, annotations);
    const bool own_series = std::any_of(series.begin(), series.end(), [&](const HistoryPoint& p) {
      return p.settings_hash == point.settings_hash;
    });
    std::vector<Finding> found =
        own_series ? CheckCell(cell, series, point, Measure::kSeconds, true, annotations, o)
                   : CheckCell(cell, SeriesOf(others, cell, annotations), point, Measure::kRatio,
                               false, annotations, o);
    if (own_series && !point.ratio.empty() && !IsReferenceCell(cell, point.reference))
      ExcuseByRatio(CheckCell(cell, series, point, Measure::kRatio, true, annotations, o), found);
    result.findings.insert(result.findings.end(), found.begin(), found.end());
  }
  ExcuseTheReference(now, result.findings, o);
  return result;
}

std::string CheckText(const CheckResult& r) {
  std::string text = fmt::format(
      "History check of {} on {} ({}): {}.\n\n", ShortCommit(r.commit), r.machine_name, r.machine,
      r.own_history ? "against this machine's series: times are gated"
                    : "this machine has no series: times compared as ratios with other "
                      "machines' and noted, not gated; metrics and exact counts gated");
  text += "| cell | what | verdict | detail |\n|---|---|---|---|\n";
  for (const Finding& f : r.findings) {
    text +=
        fmt::format("| {} | {} | {} | {} |\n", f.cell, f.what, VerdictText(f.verdict), f.detail);
  }
  const int code = r.ExitCode();
  text += fmt::format("\nResult: {}.\n", code == 1   ? "regression"
                                         : code == 2 ? "suspect (measure again)"
                                                     : "ok");
  return text;
}

}  // namespace sparsebench
