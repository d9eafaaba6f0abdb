#include "harness/history/show.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "harness/history/series.h"

namespace sparsebench {
namespace {

std::string ChangesText(const std::vector<HistoryPoint>& points,
                        const std::vector<ChangePoint>& changes) {
  std::vector<std::string> parts;
  for (const ChangePoint& c : changes) {
    parts.push_back(fmt::format("{} {:+.1f}% (p {:.0e})", ShortCommit(points[c.index].commit),
                                100 * c.change(), c.p));
  }
  for (size_t i = 1; i < points.size(); ++i) {
    if (!points[i].annotation.empty())
      parts.push_back(
          fmt::format("{} annotated: {}", ShortCommit(points[i].commit), points[i].annotation));
    else if (points[i].starts_segment)
      parts.push_back(fmt::format("{} new settings", ShortCommit(points[i].commit)));
  }
  return parts.empty() ? "—" : fmt::format("{}", fmt::join(parts, "; "));
}

std::string CounterChanges(const std::vector<HistoryPoint>& points) {
  std::vector<std::string> parts;
  for (size_t i = 1; i < points.size(); ++i) {
    const HistoryPoint &a = points[i - 1], &b = points[i];
    if (a.build != b.build) continue;
    const CountComparison compared = CompareCounts(a, b);
    for (const CountChange& c : compared.changes) {
      const double before = static_cast<double>(c.before) / std::max<uint64_t>(c.samples_before, 1),
                   after = static_cast<double>(c.after) / std::max<uint64_t>(c.samples_after, 1);
      parts.push_back(c.before == 0 ? fmt::format("{} {} from 0", ShortCommit(b.commit), c.key)
                                    : fmt::format("{} {} {:+.2f}%", ShortCommit(b.commit), c.key,
                                                  100 * (after / before - 1)));
    }
    for (const std::string& key : compared.added)
      parts.push_back(fmt::format("{} {} new", ShortCommit(b.commit), key));
  }
  return parts.empty() ? "—" : fmt::format("{}", fmt::join(parts, "; "));
}

// The lowest and highest finite values (infinities when there is none).
std::pair<double, double> FiniteRange(const std::vector<double>& values) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  return {lo, hi};
}

// "0.61–0.68 s": the lowest and highest values a sparkline draws.
std::string RangeText(const std::vector<double>& values) {
  const auto [lo, hi] = FiniteRange(values);
  return std::isfinite(lo) ? fmt::format("{:.3g}–{:.3g} s", lo, hi) : "";
}

}  // namespace

std::string Sparkline(const std::vector<double>& values) {
  static const char* const kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  const auto [lo, hi] = FiniteRange(values);
  std::string line;
  for (double v : values) {
    if (!std::isfinite(v)) {
      line += "×";  // a failed point
      continue;
    }
    const double at = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    line += kBlocks[std::clamp(static_cast<int>(std::lround(at * 7)), 0, 7)];
  }
  return line;
}

std::string ShowText(const HistoryStore& store, const ShowOptions& o) {
  std::string text;
  const std::vector<Annotation> annotations = store.Annotations();
  for (const std::string& machine : store.Machines()) {
    if (!o.machine.empty() && machine != o.machine) continue;
    const std::vector<HistoryRecord> records = store.Records(machine);
    if (records.empty()) continue;
    text += fmt::format("## {} ({})\n\n", records.back().machine_name, machine);
    text +=
        "| cell | points | seconds, oldest → newest | latest | change points | work counts |\n"
        "|---|---|---|---|---|---|\n";
    for (const std::string& cell : CellsOf(records)) {
      if (::fnmatch(o.cell.c_str(), cell.c_str(), 0) != 0) continue;
      const std::vector<HistoryPoint> points = SeriesOf(records, cell, annotations);
      std::vector<double> values;
      for (const HistoryPoint& p : points)
        values.push_back(p.ok() ? ValueOf(p, Measure::kSeconds) : NAN);
      const size_t from = values.size() > o.last ? values.size() - o.last : 0;
      const double latest = values.back();
      const std::vector<double> drawn(values.begin() + static_cast<std::ptrdiff_t>(from),
                                      values.end());
      text +=
          fmt::format("| {} | {} | {} {} | {} | {} | {} |\n", cell, points.size(), Sparkline(drawn),
                      RangeText(drawn),
                      points.back().ok()
                          ? fmt::format("{:.4g} s at {}", latest, ShortCommit(points.back().commit))
                          : points.back().status + " at " + ShortCommit(points.back().commit),
                      ChangesText(points, SeriesChangePoints(points, Measure::kSeconds, o.change)),
                      CounterChanges(points));
    }
    text += "\n";
  }
  if (text.empty()) text = fmt::format("No history in {}.\n", store.dir());
  return text;
}

}  // namespace sparsebench
