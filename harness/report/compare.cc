#include "harness/report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "datasets/data_error.h"
#include "engine/api/engine_family.h"
#include "harness/record/results_csv.h"
#include "harness/record/rows.h"
#include "harness/report/summary.h"

namespace sparsebench {
namespace {

using Key = std::tuple<std::string, std::string, int>;  // dataset, engine, threads

std::vector<CellResult> Load(const std::string& path, const EngineRegistry& engines) {
  if (std::filesystem::is_directory(path)) return LoadRows({path}, engines);
  return ReadResultsCsv(path);
}

double Number(const std::optional<double>& v) { return v.value_or(NAN); }

struct Side {
  std::map<Key, std::vector<double>> times, metrics;
  std::map<Key, std::string> failures;  // a repeat that did not end ok
  std::map<Key, std::string> invalid;   // an ok repeat without a finite time or metric
  std::map<Key, std::string> untimed;   // ratio mode: no reference time to divide by
  std::set<std::string> machines;
};

// Per cell: training seconds, or (ratio mode) seconds divided by the reference engine's in
// the same run, dataset, threads, repeat and machine.
Side Collect(const std::vector<CellResult>& rows, bool ratio, const std::string& reference) {
  using Where =
      std::tuple<std::string, int64_t, int64_t, std::string>;  // dataset, threads, repeat, machine
  auto where = [](const CellResult& r) -> Where {
    return {r.dataset, r.threads.value_or(0), r.repeat.value_or(0), r.machine};
  };
  std::map<Where, double> reference_seconds;
  for (const CellResult& r : rows) {
    if (r.name == reference && r.ok()) reference_seconds[where(r)] = Number(r.train_seconds);
  }
  Side side;
  for (const CellResult& r : rows) {
    const Key key{r.dataset, r.name, static_cast<int>(r.threads.value_or(0))};
    side.machines.insert(r.machine);
    if (!r.ok()) {
      side.failures[key] = std::string(Text(r.status)) + ": " + r.reason;
      continue;
    }
    // An ok row must say how long it trained and how well: a missing or NaN value would
    // otherwise drop out of the medians and pass unseen.
    const double metric = Number(r.metric_value);
    double t = Number(r.train_seconds);
    const std::string at = fmt::format("repeat {}", r.repeat.value_or(0));
    if (!std::isfinite(t) || t < 0) {
      side.invalid[key] = at + " is ok but has no finite train_seconds";
      continue;
    }
    if (!std::isfinite(metric)) {
      side.invalid[key] = at + " is ok but has no finite metric_value";
      continue;
    }
    side.metrics[key].push_back(metric);
    if (ratio) {
      const auto ref = reference_seconds.find(where(r));
      if (ref == reference_seconds.end() || !(ref->second > 0) || !std::isfinite(ref->second)) {
        side.untimed[key] =
            fmt::format("{} has no ok '{}' row with a time to divide by", at, reference);
        continue;
      }
      t /= ref->second;
    }
    side.times[key].push_back(t);
  }
  return side;
}

// Number of orderings of n1 + n2 distinct values whose U statistic is each u.
std::vector<double> UCounts(size_t n1, size_t n2) {
  std::vector<std::vector<std::vector<double>>> f(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (size_t i = 0; i <= n1; ++i) {
    for (size_t j = 0; j <= n2; ++j) {
      f[i][j].assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        f[i][j][0] = 1;
        continue;
      }
      for (size_t u = 0; u <= i * j; ++u) {
        f[i][j][u] = (u >= j ? f[i - 1][j][u - j] : 0.0) + (u <= i * (j - 1) ? f[i][j - 1][u] : 0.0);
      }
    }
  }
  return f[n1][n2];
}

}  // namespace

double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1.0;
  double u = 0;
  bool ties = false;
  for (double x : a) {
    for (double y : b) {
      u += x > y ? 1.0 : x == y ? 0.5 : 0.0;
      ties |= x == y;
    }
  }
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  const double low = std::min(u, n1 * n2 - u);
  if (!ties && a.size() * b.size() <= 2500) {
    const std::vector<double> counts = UCounts(a.size(), b.size());
    double total = 0, tail = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (static_cast<double>(k) <= low) tail += counts[k];
    }
    return std::min(1.0, 2 * tail / total);
  }
  std::vector<double> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  double tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double n = n1 + n2;
  const double sigma = std::sqrt(n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1))));
  if (sigma == 0) return 1.0;
  const double z = (std::abs(u - n1 * n2 / 2) - 0.5) / sigma;
  return std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
}

CompareResult Compare(const CompareOptions& o, const EngineRegistry& engines) {
  const auto base_rows = Load(o.baseline, engines), current_rows = Load(o.current, engines);
  const std::string reference = o.reference.empty() ? engines.DefaultReference() : o.reference;
  // Nothing to compare must never read as "no regression".
  if (base_rows.empty()) throw DataError(o.baseline, 0, "the baseline has no result rows: nothing to compare against");
  std::set<std::string> machines;
  for (const auto& r : base_rows) machines.insert(r.machine);
  for (const auto& r : current_rows) machines.insert(r.machine);
  const bool ratio = machines.size() > 1;
  const Side base = Collect(base_rows, ratio, reference),
             current = Collect(current_rows, ratio, reference);
  CompareResult result;
  std::string& md = result.markdown;
  md += ratio ? fmt::format(
                    "Timing compared as ratios to `{}` measured in the same run (the runs come "
                    "from different machines).\n\n",
                    reference)
              : "Timing compared as raw training seconds (both runs on the same machine).\n\n";
  md += fmt::format(
      "Bounds: slowdown {:.10g}% (and Mann-Whitney p < {:g} when both sides have ≥ {} repeats), "
      "metric drop {:.10g} points.\n\n",
      o.max_slowdown * 100, o.alpha, o.min_repeats, o.max_metric_drop);
  md += "| dataset | engine | threads | repeats base/current | time base | time current | ratio | p | metric base | metric current | verdict |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n";
  bool few = false;
  std::set<Key> keys;
  for (const auto& [k, v] : base.metrics) keys.insert(k);
  for (const auto& [k, v] : base.failures) keys.insert(k);
  for (const auto& [k, v] : base.invalid) keys.insert(k);
  for (const Key& key : keys) {
    const auto& [dataset, engine, threads] = key;
    const Stat bt = Summarize(base.times.count(key) ? base.times.at(key) : std::vector<double>{});
    const Stat ct = Summarize(current.times.count(key) ? current.times.at(key) : std::vector<double>{});
    const Stat bm = Summarize(base.metrics.count(key) ? base.metrics.at(key) : std::vector<double>{});
    const Stat cm = Summarize(current.metrics.count(key) ? current.metrics.at(key) : std::vector<double>{});
    const bool timed = !(ratio && engine == reference);  // the reference's own ratio is 1
    std::string verdict = "ok";
    double time_ratio = NAN, p = NAN;
    if (base.invalid.count(key)) {
      verdict = "REGRESSION: the baseline is not usable here: " + base.invalid.at(key);
    } else if (current.invalid.count(key)) {
      verdict = "REGRESSION: " + current.invalid.at(key);
    } else if (bm.n > 0 && cm.n == 0) {
      verdict = "REGRESSION: " + (current.failures.count(key) ? current.failures.at(key) : std::string("missing"));
    } else if (bm.n > 0 && current.failures.count(key)) {  // one repeat that did not end ok is enough
      verdict = "REGRESSION: a repeat ended " + current.failures.at(key);
    } else if (bm.n > 0) {
      if (timed && (bt.n == 0 || ct.n == 0)) {
        const std::string why = bt.n == 0 ? (base.untimed.count(key) ? "baseline " + base.untimed.at(key) : std::string("baseline has no time"))
                                          : (current.untimed.count(key) ? current.untimed.at(key) : std::string("no time"));
        verdict = "REGRESSION: timing cannot be compared: " + why;
      } else if (timed) {
        time_ratio = bt.median > 0 ? ct.median / bt.median : ct.median > 0 ? INFINITY : 1.0;
        const bool enough = bt.n >= o.min_repeats && ct.n >= o.min_repeats;
        few |= !enough;
        p = enough ? MannWhitneyP(bt.values, ct.values) : NAN;
        if (!(time_ratio <= 1 + o.max_slowdown) && (!enough || p < o.alpha)) {
          verdict = fmt::format("REGRESSION: {:.0f}% slower", (time_ratio - 1) * 100);
        }
      }
      if (!((bm.median - cm.median) * 100 <= o.max_metric_drop)) {
        verdict = fmt::format("REGRESSION: metric {:.2f} points lower", (bm.median - cm.median) * 100);
      }
    } else {
      verdict = "baseline failed; not compared";
    }
    result.regression |= verdict.rfind("REGRESSION", 0) == 0;
    md += fmt::format("| {} | {} | {} | {}/{} | {:.4g} | {:.4g} | {:.3f} | {} | {:.4f} | {:.4f} | {} |\n", dataset, engine, threads,
                      bt.n, ct.n, bt.median, ct.median, time_ratio, std::isnan(p) ? std::string("—") : fmt::format("{:.3f}", p),
                      bm.median, cm.median, verdict);
  }
  if (few) md += fmt::format("\nToo few repeats (< {}) on a side for the Mann-Whitney test to mean anything: the ratio bound alone decided those cells.\n", o.min_repeats);
  if (current_rows.empty()) {
    result.regression = true;
    md += "\nThe current run has no result rows.\n";
  }
  if (base.metrics.empty()) {
    result.regression = true;
    md += "\nNo baseline cell ended ok: nothing was compared.\n";
  }
  md += result.regression ? "\nResult: regression.\n" : "\nResult: no regression.\n";
  return result;
}

}  // namespace sparsebench
