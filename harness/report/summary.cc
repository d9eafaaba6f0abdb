#include "harness/report/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

#include "engine/api/engine_family.h"

namespace sparsebench {
namespace {

double Number(const std::optional<double>& v) { return v.value_or(NAN); }

void Add(std::vector<double>& values, double v) {
  if (!std::isnan(v)) values.push_back(v);
}
void Add(Stat& stat, double v) { Add(stat.values, v); }

void SetSpeedup(Group& g, const std::vector<Group>& groups) {
  const double t = g.time_to_target.median;
  if (g.ok == 0 || !std::isfinite(t) || !(t > 0)) return;
  // The fastest dense time to target; the least training time of a dense baseline that its
  // budget stopped before the target (its time to target lies beyond; one that ran all its
  // epochs without reaching the target never reaches it).
  double reached = INFINITY, beyond = INFINITY;
  bool elsewhere = false;
  for (const Group& d : groups) {
    if (!d.dense || d.ok == 0) continue;
    if (!SameMachineAndThreads(d, g)) {
      elsewhere |= d.machine != g.machine;
      continue;
    }
    if (std::isfinite(d.time_to_target.median)) {
      reached = std::min(reached, d.time_to_target.median);
    } else if (d.budget_stops > 0 && std::isfinite(d.train_seconds.median)) {
      beyond = std::min(beyond, d.train_seconds.median);
    }
  }
  if (std::isfinite(reached) && reached <= beyond) {
    g.speedup = reached / t;
  } else if (std::isfinite(beyond)) {
    g.speedup = beyond / t;
    g.speedup_lower_bound = true;
  } else if (elsewhere) {
    g.speedup_note = "different machines";
  }
}

void SetEqualTime(Group& g, const std::vector<Group>& groups) {
  double first = INFINITY;
  for (const Group& o : groups) {
    if (o.ok > 0 && SameMachineAndThreads(o, g)) first = std::min(first, o.time_to_target.median);
  }
  if (g.ok == 0 || !std::isfinite(first)) return;
  g.equal_time_seconds = first;
  std::vector<double> values;
  for (const Curve& curve : g.curves) Add(values, MetricAt(curve, first));
  g.metric_at_equal_time = Summarize(values).median;
}

std::map<std::string, double> PhaseSeconds(const CellResult& row) {
  std::map<std::string, double> phases;
  for (const auto& epoch : row.epoch_details) {
    if (!epoch.is_object()) continue;
    for (const auto& [key, value] : epoch.items()) {
      if (key.starts_with("seconds_") && value.is_number())
        phases[key.substr(8)] += value.get<double>();
    }
  }
  return phases;
}

// The trials a fastText autotune search finished: context autotune_finished_trials, or in
// results from before it was recorded, autotune_budget's "(N trials, M finished"; -1 if none.
int AutotuneFinishedTrials(const std::map<std::string, std::string>& context) {
  const auto trials = context.find("autotune_finished_trials");
  if (trials != context.end()) return std::atoi(trials->second.c_str());
  const auto budget = context.find("autotune_budget");
  if (budget == context.end()) return -1;
  const size_t at = budget->second.find(" finished");
  if (at == std::string::npos) return -1;
  const size_t start = budget->second.find_last_of(' ', at - 1);
  return start == std::string::npos ? -1 : std::atoi(budget->second.c_str() + start + 1);
}

}  // namespace

bool SameMachineAndThreads(const Group& a, const Group& b) {
  return a.machine == b.machine && a.threads == b.threads;
}

double MetricAt(const Curve& curve, double seconds) {
  double value = NAN;
  for (const CurvePoint& p : curve) {
    if (!p.usable()) continue;
    if (*p.seconds > seconds) break;
    value = *p.value;
  }
  return value;
}

Stat Summarize(std::vector<double> values) {
  Stat s;
  s.values = values;
  s.n = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  s.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  s.min = values.front();
  s.max = values.back();
  return s;
}

std::vector<DatasetGroups> GroupRows(const std::vector<CellResult>& rows,
                                     const EngineRegistry& engines) {
  std::vector<DatasetGroups> datasets;
  std::map<std::tuple<std::string, std::string, std::string, int>, std::pair<size_t, size_t>> where;
  auto text = [](const std::string& s, const char* missing) {
    return s.empty() ? std::string(missing) : s;
  };
  for (const CellResult& row : rows) {
    const std::string dataset = text(row.dataset, "?");
    auto d = std::find_if(datasets.begin(), datasets.end(), [&](const DatasetGroups& x) { return x.dataset == dataset; });
    if (d == datasets.end()) {
      datasets.push_back(
          {dataset, text(row.metric, "p_at_1"), row.target_rule, Number(row.target), {}});
      d = datasets.end() - 1;
    }
    if (std::isnan(d->target)) d->target = Number(row.target);
    if (row.ok())
      d->curve_sample_rows = std::max(d->curve_sample_rows, row.curve_sample_rows.value_or(0));
    const auto key = std::make_tuple(dataset, text(row.machine, "?"), text(row.name, "?"),
                                     static_cast<int>(row.threads.value_or(0)));
    auto [it, fresh] = where.try_emplace(key, d - datasets.begin(), d->groups.size());
    if (fresh) {
      Group g;
      std::tie(g.dataset, g.machine, g.engine, g.threads) = key;
      g.spec = row.spec;
      g.metric_name = text(row.metric, "p_at_1");
      g.dense = engines.IsDenseBaseline(g.spec);
      g.external = engines.IsExternal(g.spec);
      const EngineFamily* family = engines.Find(g.spec);
      g.facts = engines.FactsOf(g.spec);
      g.ours = family != nullptr && family->ours;
      g.needs_text = family != nullptr && family->needs_text;
      g.reads_text = engines.ReadsText(g.spec);
      g.weak_note = engines.WeakNote(g.spec, d->metric);
      g.optimizer = row.optimizer;
      g.precision = row.precision;
      d->groups.push_back(g);
    }
    Group& g = datasets[it->second.first].groups[it->second.second];
    ++g.runs;
    if (!row.ok()) {
      g.failure = text(std::string(Text(row.status)), "?") + ": " + row.reason;
      continue;
    }
    ++g.ok;
    Add(g.train_seconds, Number(row.train_seconds));
    Add(g.metric, Number(row.metric_value));
    const double to_target = Number(row.time_to_target_seconds);
    g.missed += std::isnan(to_target);
    g.time_to_target.values.push_back(std::isnan(to_target) ? INFINITY : to_target);
    Add(g.samples_per_second, Number(row.samples_per_second));
    Add(g.latency_p50, Number(row.latency_p50_us));
    Add(g.latency_p99, Number(row.latency_p99_us));
    Add(g.peak_rss_mb, Number(row.peak_rss_mb));
    Add(g.cost, Number(row.cost_usd));
    Add(g.cost_to_target, Number(row.cost_to_target_usd));
    Add(g.active_recall, Number(row.active_recall_at_5));
    Add(g.label_recall, Number(row.label_recall));
    Add(g.epochs_trained, Number(row.epochs_trained));
    g.budget_stops += row.stopped_by == StopReason::kBudget;
    g.plateau_stops += row.stopped_by == StopReason::kPlateau;
    if (g.ok == 1) {
      g.holdout_rows = row.holdout_rows.value_or(0);
      g.patience_epochs = row.patience_epochs.value_or(0);
      g.min_improvement = row.min_improvement.value_or(0);
    }
    if (row.test_rows && (g.test_rows == 0 || *row.test_rows < g.test_rows))
      g.test_rows = *row.test_rows;
    if (g.autotune_budget.empty() && row.context.contains("autotune_budget")) {
      g.autotune_budget = row.context.at("autotune_budget");
      if (row.context.contains("fasttext_tuned_args"))
        g.tuned_args = row.context.at("fasttext_tuned_args");
    }
    const int finished = AutotuneFinishedTrials(row.context);
    if (finished >= 0) {
      g.autotune_finished =
          g.autotune_finished < 0 ? finished : std::min(g.autotune_finished, finished);
    }
    g.curves.push_back(row.curve);
    if (g.external && g.engine_context.empty()) {
      for (const auto& [key, value] : row.context)
        if (key.starts_with("engine_")) g.engine_context[key] = value;
    }
    const auto flag = row.context.find("engine_off_clock");
    if (flag != row.context.end() && !flag->second.empty())
      g.off_clock.push_back(
          fmt::format("repeat {}: {}", row.repeat.value_or(g.runs), flag->second));
    if (g.phase_seconds.empty()) {
      g.phase_seconds = PhaseSeconds(row);
      g.phase_repeat_train_seconds = Number(row.train_seconds);
    }
  }
  for (DatasetGroups& d : datasets) {
    for (Group& g : d.groups) {
      for (Stat* s : {&g.train_seconds, &g.metric, &g.time_to_target, &g.samples_per_second,
                      &g.latency_p50, &g.latency_p99, &g.peak_rss_mb, &g.cost, &g.cost_to_target,
                      &g.active_recall, &g.label_recall, &g.epochs_trained}) {
        *s = Summarize(s->values);
      }
    }
    for (Group& g : d.groups) {
      SetSpeedup(g, d.groups);
      SetEqualTime(g, d.groups);
    }
  }
  return datasets;
}

}  // namespace sparsebench
