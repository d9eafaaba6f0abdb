#include "harness/report/group_tables.h"

#include <fmt/format.h>

#include <cmath>

#include "harness/report/headline.h"
#include "harness/report/prose.h"
#include "harness/report/report_text.h"

namespace sparsebench {
namespace {

std::string TrainSecondsText(const Group& g) {
  if (g.budget_stops == 0) return SpreadSec(g.train_seconds);
  return SpreadSec(g.train_seconds) +
         (g.budget_stops == g.ok ? " (budget)"
                                 : fmt::format(" ({} of {} by budget)", g.budget_stops, g.ok));
}

std::string EndedText(const Group& g) {
  if (g.epochs_trained.n == 0) return "—";
  const std::string epochs = Num(g.epochs_trained.median, "{:.2f}");
  return g.budget_stops > 0 ? "budget, at epoch " + epochs : epochs + " epochs";
}

// An engine with no curve point by the moment of equal time: its first point says how far
// it was then (no further, unless its metric fell).
std::string NoPointYet(const Group& g) {
  if (g.curves.empty() || g.curves.front().empty() || !g.curves.front().front().usable())
    return "no point yet";
  const CurvePoint& p = g.curves.front().front();
  return fmt::format("no point yet; {:.4f} at its first, {} s", *p.value, Sec(*p.seconds));
}

}  // namespace

std::string Spread(const Stat& s, const char* format) {
  if (s.n == 0) return "—";
  if (s.n == 1) return Num(s.median, format);
  return Num(s.median, format) + " [" + Num(s.min, format) + "–" + Num(s.max, format) + "]";
}

std::string SpeedupText(const Group& g) {
  if (!std::isnan(g.speedup)) return (g.speedup_lower_bound ? "> " : "") + Times(g.speedup);
  return g.speedup_note.empty() ? "—" : g.speedup_note;
}

std::string TimeToTargetText(const Group& g) {
  if (g.missed == 0) return SpreadSec(g.time_to_target);
  const std::string missed = fmt::format("not reached in {} of {}", g.missed, g.time_to_target.n);
  return std::isfinite(g.time_to_target.median) ? Sec(g.time_to_target.median) + " (" + missed + ")"
                                                : missed;
}

double BestMetric(const std::vector<Group>& groups) {
  double best = NAN;
  for (const Group& g : groups) {
    if (g.ok > 0 && !std::isnan(g.metric.median))
      best = std::isnan(best) ? g.metric.median : std::max(best, g.metric.median);
  }
  return best;
}

std::string GroupTable(const std::vector<Group>& groups) {
  std::string md =
      "| engine | machine | threads | runs | train s | metric | time to target s | samples/s | "
      "active / label recall | latency p50 / p99 µs | peak memory MB | cost $ | cost to target $ | "
      "speed-up vs fastest dense |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  const double best = BestMetric(groups);
  for (const Group& g : groups) {
    md += fmt::format("| `{}`{}{} | {} | {} | {} ok / {} |", g.engine, g.external ? " ⇄" : "",
                      g.off_clock.empty() ? "" : " ⚠ work off the clock", g.machine, g.threads,
                      g.ok, g.runs);
    if (g.ok == 0) {
      md += " " + g.failure + " | | | | | | | | | |\n";
      continue;
    }
    const bool weak = !std::isnan(best) && g.metric.median < 0.5 * best;
    const std::string recall =
        std::isnan(g.active_recall.median)
            ? std::string("—")
            : Num(g.active_recall.median, "{:.3f}") + " / " + Num(g.label_recall.median, "{:.3f}");
    md += fmt::format(
        " {} | {}{} | {} | {} | {} | {} / {} | {} | {} | {} | {} |\n", TrainSecondsText(g),
        Spread(g.metric, "{:.4f}"), weak ? " ⚠ below half the best row" : "", TimeToTargetText(g),
        Num(g.samples_per_second.median, "{:.0f}"), recall, Num(g.latency_p50.median, "{:.0f}"),
        Num(g.latency_p99.median, "{:.0f}"), Num(g.peak_rss_mb.median, "{:.0f}"),
        Num(g.cost.median, "{:.5f}"), Num(g.cost_to_target.median, "{:.5f}"), SpeedupText(g));
  }
  return md;
}

// The two comparisons at the target, both read off the curves: how long each engine took to
// reach it, and what each had reached when the first engine got there.
std::string AtTheTarget(const DatasetGroups& d) {
  if (std::isnan(d.target)) return "";
  std::string md = "### At the target\n\n" + TargetRuleText(d) + " " +
                   prose::Prose(prose::kAtTheTarget) + "\n\n";
  md += fmt::format(
      "| engine | machine | threads | time to target s | speed-up vs fastest dense | {} at equal "
      "time | training ended |\n"
      "|---|---|---|---|---|---|---|\n",
      d.metric);
  for (const Group& g : d.groups) {
    if (g.ok == 0) continue;
    const std::string at = std::isnan(g.equal_time_seconds)
                               ? "—"
                               : fmt::format("{} (at {} s)",
                                             std::isnan(g.metric_at_equal_time)
                                                 ? NoPointYet(g)
                                                 : Num(g.metric_at_equal_time, "{:.4f}"),
                                             Sec(g.equal_time_seconds));
    md +=
        fmt::format("| `{}`{} | {} | {} | {} | {} | {} | {} |\n", g.engine, g.external ? " ⇄" : "",
                    g.machine, g.threads, TimeToTargetText(g), SpeedupText(g), at, EndedText(g));
  }
  return md + "\n";
}

}  // namespace sparsebench
