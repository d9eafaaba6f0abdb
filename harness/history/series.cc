#include "harness/history/series.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "harness/history/stats.h"

namespace sparsebench {

std::string ShortCommit(const std::string& commit) { return commit.substr(0, 8); }

const char* MeasureName(Measure m) { return m == Measure::kSeconds ? "seconds" : "ratio"; }

double ValueOf(const HistoryPoint& p, Measure m) {
  const std::vector<double>& v = m == Measure::kSeconds ? p.seconds : p.ratio;
  return v.empty() ? std::numeric_limits<double>::quiet_NaN() : Median(v);
}

HistoryPoint PointOf(const std::vector<const HistoryRecord*>& records) {
  HistoryPoint p;
  const HistoryRecord& first = *records.front();
  p.commit = first.commit;
  p.parent = first.parent;
  p.commit_date = first.commit_date;
  p.run_date = first.run_date;
  p.settings_hash = first.settings_hash;
  p.build = first.build;
  p.machine = first.machine;
  p.reference = first.reference;
  for (const HistoryRecord* r : records) {
    p.run_date = std::min(p.run_date, r->run_date);
    if (!r->ok() && p.ok()) p.status = r->status, p.reason = r->reason;
    p.seconds.insert(p.seconds.end(), r->train_seconds.begin(), r->train_seconds.end());
    p.metric.insert(p.metric.end(), r->metric_value.begin(), r->metric_value.end());
    if (r->ratio.size() == r->train_seconds.size())
      p.ratio.insert(p.ratio.end(), r->ratio.begin(), r->ratio.end());
    p.counters.insert(p.counters.end(), r->counters.begin(), r->counters.end());
  }
  if (p.ratio.size() != p.seconds.size()) p.ratio.clear();
  return p;
}

namespace {

std::map<uint64_t, const std::map<std::string, uint64_t>*> BySeed(const HistoryPoint& p) {
  std::map<uint64_t, const std::map<std::string, uint64_t>*> by_seed;
  for (const SeedCounts& c : p.counters) by_seed.emplace(c.seed, &c.counts);
  return by_seed;
}

uint64_t CountOf(const std::map<std::string, uint64_t>& counts, const std::string& key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

CountComparison CompareCounts(const HistoryPoint& before, const HistoryPoint& after) {
  CountComparison result;
  const auto a = BySeed(before), b = BySeed(after);
  std::map<std::string, CountChange> sums;
  std::set<std::string> added, dropped;
  for (const auto& [seed, was] : a) {
    const auto now = b.find(seed);
    if (now == b.end()) continue;
    ++result.seeds;
    std::set<std::string> keys;
    for (const auto& [key, value] : *was) keys.insert(key);
    for (const auto& [key, value] : *now->second) keys.insert(key);
    for (const std::string& key : keys) {
      if (key == "samples") continue;
      if (!was->contains(key) || !now->second->contains(key)) {
        (was->contains(key) ? dropped : added).insert(key);
        continue;
      }
      CountChange& c = sums[key];
      c.key = key;
      c.before += was->at(key);
      c.after += now->second->at(key);
      c.samples_before += CountOf(*was, "samples");
      c.samples_after += CountOf(*now->second, "samples");
    }
  }
  for (const auto& [key, c] : sums) {
    if (c.before != c.after || c.samples_before != c.samples_after) result.changes.push_back(c);
  }
  result.added.assign(added.begin(), added.end());
  result.dropped.assign(dropped.begin(), dropped.end());
  return result;
}

bool CountsDisagree(const HistoryPoint& p) {
  const auto by_seed = BySeed(p);
  return std::any_of(p.counters.begin(), p.counters.end(),
                     [&](const SeedCounts& c) { return *by_seed.at(c.seed) != c.counts; });
}

std::vector<HistoryPoint> SeriesOf(const std::vector<HistoryRecord>& records,
                                   const std::string& cell,
                                   const std::vector<Annotation>& annotations) {
  using Key = std::tuple<std::string, std::string, std::string>;  // commit, settings, machine
  std::map<Key, std::vector<const HistoryRecord*>> groups;
  for (const HistoryRecord& r : records) {
    if (r.cell == cell) groups[{r.commit, r.settings_hash, r.machine}].push_back(&r);
  }
  std::vector<HistoryPoint> points;
  for (const auto& [key, group] : groups) points.push_back(PointOf(group));
  std::stable_sort(points.begin(), points.end(), [](const HistoryPoint& a, const HistoryPoint& b) {
    return std::tie(a.commit_date, a.run_date) < std::tie(b.commit_date, b.run_date);
  });
  for (size_t i = 0; i < points.size(); ++i) {
    HistoryPoint& p = points[i];
    p.starts_segment = i == 0 || points[i - 1].settings_hash != p.settings_hash;
    for (const Annotation& a : annotations) {
      if (a.Matches(p.commit, cell)) p.starts_segment = true, p.annotation = a.reason;
    }
  }
  return points;
}

CellParts PartsOf(const std::string& cell) {
  const size_t last = cell.rfind('/');
  const size_t first =
      last == std::string::npos || last == 0 ? std::string::npos : cell.rfind('/', last - 1);
  if (first == std::string::npos || cell.compare(last + 1, 1, "t") != 0) return {};
  return {cell.substr(0, first), cell.substr(first + 1, last - first - 1), cell.substr(last + 2)};
}

bool IsReferenceCell(const std::string& cell, const std::string& reference) {
  return !reference.empty() && PartsOf(cell).engine == reference;
}

std::vector<std::string> CellsOf(const std::vector<HistoryRecord>& records) {
  std::set<std::string> cells;
  for (const HistoryRecord& r : records) cells.insert(r.cell);
  return {cells.begin(), cells.end()};
}

std::vector<ChangePoint> SeriesChangePoints(const std::vector<HistoryPoint>& points, Measure m,
                                            const ChangePointOptions& options) {
  std::vector<ChangePoint> found;
  size_t begin = 0;
  while (begin < points.size()) {
    size_t end = begin + 1;
    while (end < points.size() && !points[end].starts_segment) ++end;
    std::vector<double> values;
    std::vector<size_t> where;
    for (size_t i = begin; i < end; ++i) {
      const double v = ValueOf(points[i], m);
      if (points[i].ok() && std::isfinite(v)) values.push_back(v), where.push_back(i);
    }
    for (ChangePoint c : FindChangePoints(values, options)) {
      c.index = where[c.index];
      found.push_back(c);
    }
    begin = end;
  }
  return found;
}

}  // namespace sparsebench
