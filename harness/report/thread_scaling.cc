#include "harness/report/thread_scaling.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "engine/api/engine_family.h"
#include "harness/report/prose.h"
#include "harness/report/report_text.h"

namespace sparsebench {
namespace {

// One engine's ok groups on one machine, by thread count.
using Series = std::map<int, const Group*>;

double Throughput(const Group* g) { return g == nullptr ? NAN : g->samples_per_second.median; }

std::string TimeToTarget(const Group* g) {
  if (g == nullptr) return "—";
  return std::isfinite(g->time_to_target.median) ? Sec(g->time_to_target.median) : "not reached";
}

// Samples/s at `to` over samples/s at `from`, with the same ratio of times to target where
// both reached it.
std::string Speedup(const Group* from, const Group* to) {
  const double ratio = Throughput(to) / Throughput(from);
  if (!std::isfinite(ratio)) return "—";
  std::string text = fmt::format("{:.2f}×", ratio);
  if (from != nullptr && to != nullptr && std::isfinite(from->time_to_target.median) &&
      std::isfinite(to->time_to_target.median) && to->time_to_target.median > 0) {
    text += fmt::format(" (to target {:.2f}×)",
                        from->time_to_target.median / to->time_to_target.median);
  }
  return text;
}

// How much faster each of the engine's own phase timers ran at `to` than at `from`, and the
// rest of the training clock; "" when the engine keeps no timers.
std::string Phases(const Group& from, const Group& to) {
  std::vector<std::string> ratios;
  double timed_from = 0, timed_to = 0;
  for (const auto& [name, seconds] : from.phase_seconds) {
    const auto other = to.phase_seconds.find(name);
    if (other == to.phase_seconds.end() || !(seconds > 0) || !(other->second > 0)) continue;
    ratios.push_back(fmt::format("{} {:.2f}×", name, seconds / other->second));
    timed_from += seconds;
    timed_to += other->second;
  }
  if (ratios.empty()) return "";
  const double rest_from = from.phase_repeat_train_seconds - timed_from,
               rest_to = to.phase_repeat_train_seconds - timed_to;
  if (rest_from > 0.05 * from.phase_repeat_train_seconds && rest_to > 0) {
    ratios.push_back(fmt::format("the rest of the clock {:.2f}×", rest_from / rest_to));
  }
  return fmt::format("; its own timers, summed over epochs: {}", fmt::join(ratios, ", "));
}

// Adjacent thread counts where the engine's throughput grew by less than kScalingEfficiency of
// the thread ratio.
std::vector<std::string> Limits(const Series& s) {
  std::vector<std::string> steps;
  for (auto it = s.begin(); std::next(it) != s.end(); ++it) {
    const auto next = std::next(it);
    const double ratio = Throughput(next->second) / Throughput(it->second);
    const double threads = static_cast<double>(next->first) / it->first;
    if (std::isfinite(ratio) && ratio < kScalingEfficiency * threads) {
      steps.push_back(fmt::format("{}→{} threads {:.2f}× (of {:g}×{})", it->first, next->first,
                                  ratio, threads, Phases(*it->second, *next->second)));
    }
  }
  return steps;
}

}  // namespace

std::string ThreadScaling(const DatasetGroups& d) {
  std::vector<std::pair<std::string, std::string>> order;  // (engine, machine), first seen first
  std::map<std::pair<std::string, std::string>, Series> series;
  std::set<int> counts;
  for (const Group& g : d.groups) {
    if (g.ok == 0) continue;
    const auto key = std::make_pair(g.engine, g.machine);
    if (!series.contains(key)) order.push_back(key);
    series[key][g.threads] = &g;
  }
  std::erase_if(order, [&](const auto& key) { return series[key].size() < 2; });
  if (order.empty()) return "";
  for (const auto& key : order) {
    for (const auto& [threads, g] : series[key]) counts.insert(threads);
  }
  const int fewest = *counts.begin();
  std::vector<std::string> columns = {"engine", "machine"};
  for (int t : counts) columns.push_back(fmt::format("samples/s, {} thr", t));
  for (int t : counts) columns.push_back(fmt::format("time to target s, {} thr", t));
  for (int t : counts) {
    if (t != fewest) columns.push_back(fmt::format("speed-up {}→{} thr", fewest, t));
  }
  std::string md = "### Thread scaling\n\n" +
                   fmt::format(fmt::runtime(prose::Prose(prose::kThreadScaling)), fewest,
                               kScalingEfficiency * 100, 2 * kScalingEfficiency) +
                   "\n\n";
  std::string rule = "|";
  for (size_t i = 0; i < columns.size(); ++i) rule += "---|";
  md += fmt::format("| {} |\n{}\n", fmt::join(columns, " | "), rule);
  std::string limits;
  for (const auto& key : order) {
    const Series& s = series[key];
    auto at = [&](int t) {
      const auto it = s.find(t);
      return it == s.end() ? nullptr : it->second;
    };
    md += fmt::format("| `{}` | {} |", key.first, key.second);
    for (int t : counts) md += " " + Num(Throughput(at(t)), "{:.0f}") + " |";
    for (int t : counts) md += " " + TimeToTarget(at(t)) + " |";
    for (int t : counts) {
      if (t != fewest) md += " " + Speedup(at(fewest), at(t)) + " |";
    }
    md += "\n";
    const std::vector<std::string> steps = Limits(s);
    if (steps.empty()) continue;
    const std::string threads = s.begin()->second->facts.threads_run;
    limits += fmt::format(
        "- `{}` ({}): {}. {}\n", key.first, key.second, fmt::join(steps, "; "),
        threads.empty() ? "What limits it is not recorded." : "On the threads: " + threads + ".");
  }
  if (!limits.empty()) md += "\n**Scaling limits**\n\n" + limits;
  return md + "\n";
}

}  // namespace sparsebench
