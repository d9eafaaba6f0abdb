#include "harness/history/page_model.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "harness/history/series.h"
#include "harness/history/stats.h"

namespace sparsebench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The commits of a machine's records, ordered as SeriesOf orders points.
std::vector<PageCommit> AxisOf(const std::vector<HistoryRecord>& records,
                               const std::map<std::string, std::string>& subjects) {
  std::map<std::string, std::pair<std::string, std::string>> when;  // commit -> dates
  for (const HistoryRecord& r : records) {
    auto [at, fresh] = when.emplace(r.commit, std::pair{r.commit_date, r.run_date});
    if (!fresh) at->second.second = std::min(at->second.second, r.run_date);
  }
  std::vector<PageCommit> axis;
  for (const auto& [commit, dates] : when) {
    const auto subject = subjects.find(commit);
    axis.push_back(
        {commit, subject == subjects.end() ? "" : subject->second, dates.first, dates.second});
  }
  std::stable_sort(axis.begin(), axis.end(), [&](const PageCommit& a, const PageCommit& b) {
    return when.at(a.id) < when.at(b.id);
  });
  return axis;
}

// Median, lowest and highest of `v` (NaN for none).
std::tuple<double, double, double> Summary(const std::vector<double>& v) {
  if (v.empty()) return {kNaN, kNaN, kNaN};
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {Median(v), *lo, *hi};
}

const std::vector<double>& RepeatsOf(const HistoryPoint& p, Measure m) {
  return m == Measure::kSeconds ? p.seconds : p.ratio;
}

// The timed series of a cell is its time ÷ the reference engine's, unless it is the reference
// or some point lacks the ratio: then its seconds.
Measure MeasureOf(const std::string& cell, const std::vector<HistoryPoint>& points) {
  for (const HistoryPoint& p : points) {
    if (IsReferenceCell(cell, p.reference) || (p.ok() && p.ratio.empty())) return Measure::kSeconds;
  }
  return Measure::kRatio;
}

struct Segmented {
  std::vector<ChangePoint> changes;
  std::vector<Segment> segments;  // forced starts and change points together
  std::vector<double> mean, spread;
};

Segmented SegmentsOf(const std::vector<HistoryPoint>& points, Measure m,
                     const ChangePointOptions& options) {
  Segmented s;
  s.changes = SeriesChangePoints(points, m, options);
  std::set<size_t> starts = {0};
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].starts_segment) starts.insert(i);
  }
  for (const ChangePoint& c : s.changes) starts.insert(c.index);
  std::vector<size_t> begin(starts.begin(), starts.end());
  for (size_t k = 0; k < begin.size(); ++k) {
    const size_t end = k + 1 < begin.size() ? begin[k + 1] : points.size();
    std::vector<double> values;
    for (size_t i = begin[k]; i < end; ++i) {
      const double v = ValueOf(points[i], m);
      if (points[i].ok() && std::isfinite(v)) values.push_back(v);
    }
    s.segments.push_back({begin[k], end});
    s.mean.push_back(values.empty() ? kNaN : Mean(values));
    s.spread.push_back(values.size() < 2 ? 0 : StdDev(values));
  }
  return s;
}

// The index of the segment holding point `i`.
size_t SegmentOf(const Segmented& s, size_t i) {
  size_t k = 0;
  while (k + 1 < s.segments.size() && s.segments[k + 1].begin <= i) ++k;
  return k;
}

// The last ok point before `i` (i itself when there is none).
size_t OkBefore(const std::vector<HistoryPoint>& points, size_t i) {
  for (size_t j = i; j-- > 0;) {
    if (points[j].ok()) return j;
  }
  return i;
}

std::string Percent(double change) { return fmt::format("{:+.1f}%", 100 * change); }

// The fastest dense row's training seconds per repeat, at one commit, dataset and threads.
using DenseKey = std::tuple<std::string, std::string, std::string>;  // commit, dataset, threads
using DenseTimes = std::map<DenseKey, std::vector<double>>;

DenseTimes FastestDense(const std::map<std::string, std::vector<HistoryPoint>>& series,
                        const std::map<std::string, std::string>& spec_of,
                        const EngineRegistry& engines) {
  DenseTimes fastest;
  for (const auto& [cell, points] : series) {
    if (!engines.IsDenseBaseline(spec_of.at(cell))) continue;
    const CellParts parts = PartsOf(cell);
    for (const HistoryPoint& p : points) {
      if (!p.ok()) continue;
      std::vector<double>& best = fastest[{p.commit, parts.dataset, parts.threads}];
      for (size_t r = 0; r < p.seconds.size(); ++r) {
        if (r == best.size()) best.push_back(p.seconds[r]);
        best[r] = std::min(best[r], p.seconds[r]);
      }
    }
  }
  return fastest;
}

void AddSpeedUp(PageCell& out, const std::string& cell, const HistoryPoint& p,
                const DenseTimes& dense) {
  std::vector<double> speedups;
  const CellParts parts = PartsOf(cell);
  const auto best = dense.find({p.commit, parts.dataset, parts.threads});
  if (p.ok() && best != dense.end()) {
    for (size_t r = 0; r < p.seconds.size() && r < best->second.size(); ++r) {
      if (p.seconds[r] > 0) speedups.push_back(best->second[r] / p.seconds[r]);
    }
  }
  const auto [median, lo, hi] = Summary(speedups);
  out.speedup.push_back(median);
  out.speedup_lo.push_back(lo);
  out.speedup_hi.push_back(hi);
}

void AddCounts(PageCell& out, const std::vector<HistoryPoint>& points,
               const std::map<std::string, size_t>& x_of) {
  std::set<std::string> names;
  for (const HistoryPoint& p : points) {
    for (const SeedCounts& c : p.counters) {
      for (const auto& [key, value] : c.counts) {
        if (key != "samples") names.insert(key);
      }
    }
  }
  out.counter_names.assign(names.begin(), names.end());
  for (const std::string& name : out.counter_names) {
    std::vector<double>& row = out.per_sample.emplace_back();
    for (const HistoryPoint& p : points) {
      std::vector<double> values;
      for (const SeedCounts& c : p.counters) {
        const auto count = c.counts.find(name), samples = c.counts.find("samples");
        if (count == c.counts.end() || samples == c.counts.end() || samples->second == 0) continue;
        values.push_back(static_cast<double>(count->second) / static_cast<double>(samples->second));
      }
      row.push_back(values.empty() ? kNaN : Median(values));
    }
  }
  const HistoryPoint* last = nullptr;
  for (const HistoryPoint& p : points) {
    if (p.counters.empty()) continue;
    if (last && last->build == p.build) {
      std::vector<std::string> moved;
      for (const CountChange& c : CompareCounts(*last, p).changes) moved.push_back(c.key);
      if (!moved.empty()) {
        out.count_marks.push_back({x_of.at(p.commit), "counts", p.commit, "counts",
                                   fmt::format("{} changed since {}", fmt::join(moved, ", "),
                                               ShortCommit(last->commit))});
      }
    }
    last = &p;
  }
}

// The chart's own line under it: what its blue series is, and where it ends.
std::string Caption(const PageCell& c, Measure m, const std::string& reference,
                    const std::vector<PageCommit>& axis) {
  std::string text = m == Measure::kSeconds
                         ? "Training seconds"
                         : fmt::format("Training time ÷ {}'s in the same run", reference);
  for (size_t i = c.value.size(); i-- > 0;) {
    if (!std::isfinite(c.value[i])) continue;
    text += fmt::format("; latest {:.4g} at {} over {} repeat(s)", c.value[i],
                        ShortCommit(axis[c.x[i]].id), c.repeats[i]);
    if (std::isfinite(c.speedup[i]))
      text += fmt::format(", {:.2f}× the fastest dense row's speed", c.speedup[i]);
    break;
  }
  return text + ".";
}

struct CellInput {
  const std::string& machine;
  const std::string& cell;
  const std::vector<HistoryPoint>& points;
  const std::map<std::string, size_t>& x_of;
  const std::vector<PageCommit>& axis;
  const DenseTimes& dense;
};

PageCell BuildCell(const CellInput& in, const PageOptions& o, std::vector<PageChange>& changes) {
  const Measure m = MeasureOf(in.cell, in.points);
  const std::string reference = in.points.back().reference;
  PageCell out;
  out.id = in.cell;
  out.measure = m == Measure::kRatio ? "time ÷ " + reference : "training seconds";
  const Segmented seg = SegmentsOf(in.points, m, o.check.change);
  for (size_t i = 0; i < in.points.size(); ++i) {
    const HistoryPoint& p = in.points[i];
    const auto [median, lo, hi] = p.ok() ? Summary(RepeatsOf(p, m)) : std::tuple{kNaN, kNaN, kNaN};
    out.x.push_back(in.x_of.at(p.commit));
    out.value.push_back(median);
    out.lo.push_back(lo);
    out.hi.push_back(hi);
    out.fit.push_back(seg.mean[SegmentOf(seg, i)]);
    out.repeats.push_back(RepeatsOf(p, m).size());
    out.status.push_back(p.ok() ? "ok" : p.status + ": " + p.reason);
    AddSpeedUp(out, in.cell, p, in.dense);
  }
  for (size_t k = 1; k < seg.segments.size(); ++k) {
    const size_t i = seg.segments[k].begin;
    const HistoryPoint& p = in.points[i];
    const auto found = std::find_if(seg.changes.begin(), seg.changes.end(),
                                    [&](const ChangePoint& c) { return c.index == i; });
    PageChange row;
    row.machine = in.machine, row.cell = in.cell, row.measure = out.measure;
    row.kind = found != seg.changes.end() ? "change point"
               : p.annotation.empty()     ? "new settings"
                                          : "annotated";
    row.from_commit = in.points[OkBefore(in.points, i)].commit;
    row.to_commit = p.commit;
    row.x = in.x_of.at(p.commit);
    row.before = seg.mean[k - 1], row.after = seg.mean[k];
    row.spread_before = seg.spread[k - 1], row.spread_after = seg.spread[k];
    row.p = found != seg.changes.end() ? found->p : kNaN;
    row.acknowledged = found == seg.changes.end();
    row.reason =
        p.annotation.empty() && row.acknowledged ? "the cell's settings changed" : p.annotation;
    const bool measured = std::isfinite(row.before) && std::isfinite(row.after);
    out.marks.push_back({in.x_of.at(p.commit),
                         row.kind == "change point" ? "change"
                         : row.kind == "annotated"  ? "annotated"
                                                    : "settings",
                         p.commit, measured ? Percent(row.change()) : row.kind,
                         fmt::format("{} at {}: {:.4g} → {:.4g}", row.kind, ShortCommit(p.commit),
                                     row.before, row.after)});
    if (measured) changes.push_back(row);
  }
  AddCounts(out, in.points, in.x_of);
  out.caption = Caption(out, m, reference, in.axis);
  return out;
}

PageMachine BuildMachine(const std::string& machine, const std::vector<HistoryRecord>& records,
                         const std::vector<HistoryRecord>& others,
                         const std::vector<Annotation>& annotations, const EngineRegistry& engines,
                         const std::map<std::string, std::string>& subjects, const PageOptions& o,
                         std::vector<PageChange>& changes) {
  PageMachine m;
  m.key = machine;
  m.name = records.back().machine_name;
  m.commits = AxisOf(records, subjects);
  std::map<std::string, size_t> x_of;
  for (size_t i = 0; i < m.commits.size(); ++i) x_of[m.commits[i].id] = i;
  std::map<std::string, std::vector<HistoryPoint>> series;
  std::map<std::string, std::string> spec_of;
  for (const HistoryRecord& r : records) spec_of[r.cell] = r.spec;
  for (const std::string& cell : CellsOf(records))
    series[cell] = SeriesOf(records, cell, annotations);
  const DenseTimes dense = FastestDense(series, spec_of, engines);
  for (const auto& [cell, points] : series) {
    if (::fnmatch(o.cell.c_str(), cell.c_str(), 0) != 0) continue;
    m.cells.push_back(BuildCell({machine, cell, points, x_of, m.commits, dense}, o, changes));
  }
  std::vector<HistoryRecord> now, before;
  for (const HistoryRecord& r : records)
    (r.commit == m.commits.back().id ? now : before).push_back(r);
  m.latest = CheckRecords(now, before, others, annotations, o.check);
  return m;
}

nlohmann::json MarksJson(const std::vector<PageMark>& marks) {
  nlohmann::json out = nlohmann::json::array();
  for (const PageMark& k : marks) {
    out.push_back({{"x", k.x},
                   {"kind", k.kind},
                   {"commit", ShortCommit(k.commit)},
                   {"label", k.label},
                   {"title", k.title}});
  }
  return out;
}

// "Per sample at the latest point: active_neurons 482.5, ...".
std::string LatestCounts(const PageCell& c) {
  std::vector<std::string> parts;
  for (size_t k = 0; k < c.counter_names.size(); ++k) {
    const double v = c.per_sample[k].empty() ? kNaN : c.per_sample[k].back();
    if (std::isfinite(v)) parts.push_back(fmt::format("{} {:.6g}", c.counter_names[k], v));
  }
  return fmt::format("Per sample at the latest point: {}.", fmt::join(parts, ", "));
}

nlohmann::json CellJson(const PageCell& c) {
  nlohmann::json j = {{"id", c.id},
                      {"measure", c.measure},
                      {"caption", c.caption},
                      {"x", c.x},
                      {"value", c.value},
                      {"lo", c.lo},
                      {"hi", c.hi},
                      {"fit", c.fit},
                      {"speedup", c.speedup},
                      {"speedup_lo", c.speedup_lo},
                      {"speedup_hi", c.speedup_hi},
                      {"repeats", c.repeats},
                      {"status", c.status},
                      {"marks", MarksJson(c.marks)},
                      {"counters", nullptr},
                      {"count_marks", MarksJson(c.count_marks)}};
  if (!c.counter_names.empty()) {
    j["counters"] = {
        {"names", c.counter_names}, {"per_sample", c.per_sample}, {"caption", LatestCounts(c)}};
  }
  return j;
}

}  // namespace

int HistoryPage::ExitCode() const {
  int code = 0;
  for (const PageMachine& m : machines) {
    const int c = m.latest.ExitCode();
    if (c == 1) return 1;
    code = std::max(code, c);
  }
  return code;
}

HistoryPage BuildPage(const HistoryStore& store, const EngineRegistry& engines,
                      const SubjectsOf& subjects_of, const PageOptions& o) {
  HistoryPage page;
  page.store = store.dir();
  const std::vector<Annotation> annotations = store.Annotations();
  std::map<std::string, std::vector<HistoryRecord>> all;
  std::set<std::string> commits;
  for (const std::string& machine : store.Machines()) {
    all[machine] = store.Records(machine);
    for (const HistoryRecord& r : all[machine]) commits.insert(r.commit);
  }
  const std::map<std::string, std::string> subjects =
      subjects_of ? subjects_of({commits.begin(), commits.end()})
                  : std::map<std::string, std::string>{};
  for (const auto& [machine, records] : all) {
    if (records.empty() || (!o.machine.empty() && machine != o.machine)) continue;
    std::vector<HistoryRecord> others;
    for (const auto& [other, theirs] : all) {
      if (other != machine) others.insert(others.end(), theirs.begin(), theirs.end());
    }
    page.machines.push_back(
        BuildMachine(machine, records, others, annotations, engines, subjects, o, page.changes));
  }
  return page;
}

std::string PageChartsJson(const HistoryPage& page) {
  nlohmann::json machines = nlohmann::json::array();
  for (const PageMachine& m : page.machines) {
    nlohmann::json commits = nlohmann::json::array(), cells = nlohmann::json::array();
    for (const PageCommit& c : m.commits) {
      commits.push_back({{"short", ShortCommit(c.id)},
                         {"subject", c.subject},
                         {"date", c.date.substr(0, 10)},
                         {"run", c.run_date.substr(0, 16)}});
    }
    for (const PageCell& c : m.cells) cells.push_back(CellJson(c));
    machines.push_back({{"key", m.key}, {"name", m.name}, {"commits", commits}, {"cells", cells}});
  }
  return nlohmann::json{{"machines", machines}}.dump(-1, ' ', false,
                                                     nlohmann::json::error_handler_t::replace);
}

}  // namespace sparsebench
