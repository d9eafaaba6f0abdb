#include "harness/report/dataset_notes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "harness/report/group_tables.h"
#include "harness/report/prose.h"
#include "harness/report/report_text.h"

namespace sparsebench {
namespace {

// Two standard errors of the difference between two proportions measured over `rows` test rows
// each (binomial, the two taken as independent: a conservative margin for the same rows);
// NaN when the rows are not recorded.
double FloorMargin(double metric, double floor, uint64_t rows) {
  if (rows == 0 || std::isnan(metric) || std::isnan(floor)) return NAN;
  const double n = static_cast<double>(rows);
  auto variance = [&](double p) {
    return std::clamp(p, 0.0, 1.0) * (1 - std::clamp(p, 0.0, 1.0)) / n;
  };
  return 2 * std::sqrt(variance(metric) + variance(floor));
}

// The rows not above the null engine by more than the metric's sampling error, each with its
// measured reason where its family records one.
std::string FloorLine(const DatasetGroups& d, const Group& null) {
  std::vector<std::string> floor;
  for (const Group& g : d.groups) {
    if (&g == &null || g.ok == 0) continue;
    const double margin =
        FloorMargin(g.metric.median, null.metric.median, std::min(g.test_rows, null.test_rows));
    const double above = g.metric.median - null.metric.median;
    if (above > (std::isnan(margin) ? 0.0 : margin)) continue;
    const std::string& note = g.weak_note;
    floor.push_back(
        fmt::format("`{}` ({}, {} above it{}; {})", g.engine, Num(g.metric.median, "{:.4f}"),
                    Num(above, "{:+.4f}"),
                    std::isnan(margin) ? "" : fmt::format(", margin ±{}", Num(margin, "{:.4f}")),
                    note.empty() ? "no measured explanation is recorded" : note));
  }
  const std::string margin_rule =
      null.test_rows > 0
          ? fmt::format("by more than two standard errors of the difference over {} test rows",
                        null.test_rows)
          : std::string("(the test rows were not recorded, so without a sampling margin)");
  if (floor.empty()) {
    return fmt::format("Every other row beats the null engine's {} {} {}.", d.metric,
                       Num(null.metric.median, "{:.4f}"), margin_rule);
  }
  return fmt::format("⚠ Not above the null engine's {} {} {}: {}.", d.metric,
                     Num(null.metric.median, "{:.4f}"), margin_rule, fmt::join(floor, "; "));
}

}  // namespace

std::string Differences(const DatasetGroups& d) {
  std::map<std::string, std::string> optimizer, clock, precision;
  std::vector<std::string> text_readers;
  bool any_sparse_output = false, any_ours = false, text_data = false;
  for (const Group& g : d.groups) {
    if (g.ok == 0) continue;
    const SpecFacts& facts = g.facts;
    if (!g.optimizer.empty()) optimizer[g.engine] = g.optimizer;
    precision[g.engine] = g.precision.empty() ? "not recorded" : g.precision;
    clock[g.engine] = facts.clock_covers.empty() ? "not stated by its family" : facts.clock_covers;
    if (g.ours) {
      any_ours = true;
      any_sparse_output |= !facts.all_outputs_active;
    }
    if (g.reads_text) text_readers.push_back("`" + g.engine + "`");
    text_data |= g.needs_text;
  }
  std::string md = prose::Prose(prose::kDifferences);
  for (const auto& [engine, rule] : optimizer) {
    md += fmt::format(" `{}`: {}; precision: {}; clock: {}.", engine, rule, precision[engine],
                      clock[engine]);
  }
  if (text_data) {
    md += " " + fmt::format(fmt::runtime(prose::Prose(prose::kSharedFeaturizer)),
                            fmt::join(text_readers, ", "));
  }
  if (any_ours && !any_sparse_output) md += " " + prose::Prose(prose::kOursIsDense);
  return md + "\n\n";
}

std::string Attribution(const DatasetGroups& d) {
  const Group *lsh = nullptr, *random = nullptr, *dense = nullptr, *baseline = nullptr;
  for (const Group& g : d.groups) {
    if (g.ok > 0 && g.facts.role == AblationRole::kSubject) {
      lsh = &g;
      break;
    }
  }
  if (!lsh || !std::isfinite(lsh->time_to_target.median)) return "";
  std::vector<std::string> elsewhere;
  for (const Group& g : d.groups) {
    if (g.ok == 0 || &g == lsh) continue;
    const AblationRole role = g.facts.role;
    if (!SameMachineAndThreads(g, *lsh)) {
      if (role != AblationRole::kNone || g.dense)
        elsewhere.push_back(fmt::format("`{}` ({}, {} threads)", g.engine, g.machine, g.threads));
      continue;
    }
    const Group** slot = role == AblationRole::kSubject            ? nullptr
                         : role == AblationRole::kUniformSampling  ? &random
                         : role == AblationRole::kAllOutputsActive ? &dense
                                                                   : nullptr;
    if (slot != nullptr && *slot == nullptr) *slot = &g;
    if (g.dense && std::isfinite(g.time_to_target.median) &&
        (!baseline || g.time_to_target.median < baseline->time_to_target.median)) {
      baseline = &g;
    }
  }
  const double t = lsh->time_to_target.median;
  auto versus = [&](const Group& g, const char* what, const char* ratio_of) {
    if (!std::isfinite(g.time_to_target.median)) {
      return fmt::format(", `{}` ({}) never reached it in {} s (final {:.4f})", g.engine, what,
                         Sec(g.train_seconds.median), g.metric.median);
    }
    return fmt::format(", `{}` ({}) {} s: {} is {:.2f}×", g.engine, what,
                       Sec(g.time_to_target.median), ratio_of, g.time_to_target.median / t);
  };
  std::string md = fmt::format("Ablation at the target: `{}` (LSH) {} s", lsh->engine, Sec(t));
  if (random)
    md += versus(*random, "uniform sampling, same active count", "LSH over random sampling");
  if (dense) md += versus(*dense, "our engine dense", "sparsity with LSH over dense");
  if (baseline)
    md += fmt::format("; fastest dense baseline `{}` {} s ({:.2f}×)", baseline->engine,
                      Sec(baseline->time_to_target.median), baseline->time_to_target.median / t);
  if (random && !std::isfinite(random->time_to_target.median) &&
      (baseline || lsh->speedup_lower_bound)) {
    md += ". " + prose::Prose(prose::kRandomNeverReaches);
  }
  if (!elsewhere.empty()) {
    md += fmt::format(". Not compared, on other machines or threads than `{}`: {}", lsh->engine,
                      fmt::join(elsewhere, ", "));
  }
  return md + ".\n\n";
}

std::string ExternalRows(const DatasetGroups& d) {
  const Group* null = nullptr;
  bool any = false;
  for (const Group& g : d.groups) {
    any |= g.external;
    if (g.ok > 0 && g.facts.null_engine && null == nullptr) null = &g;
  }
  if (!any) return "";
  std::string md = prose::Prose(prose::kExternalMark);
  md += null != nullptr ? fmt::format(fmt::runtime(prose::Prose(prose::kNullRoundTrip)),
                                      Num(null->latency_p50.median, "{:.0f}"), null->engine)
                        : prose::Prose(prose::kNoNullRow);
  md += prose::Prose(prose::kExternalMemory);
  return null == nullptr ? md + "\n\n" : md + "\n\n" + FloorLine(d, *null) + "\n\n";
}

std::string WeakRows(const DatasetGroups& d) {
  const double best = BestMetric(d.groups);
  std::string md;
  for (const Group& g : d.groups) {
    if (g.ok == 0 || std::isnan(best) || !(g.metric.median < 0.5 * best)) continue;
    const std::string& note = g.weak_note;
    if (g.budget_stops > 0) {
      md += fmt::format(
          "`{}` scores far below the others: its training budget stopped it after {} s, at epoch "
          "{}. ",
          g.engine, Sec(g.train_seconds.median), Num(g.epochs_trained.median, "{:.2f}"));
    } else if (!note.empty()) {
      md += fmt::format("`{}` scores far below the others: {}. ", g.engine, note);
    } else {
      md += fmt::format(
          "`{}` scores below half the best row; no measured explanation is recorded for it. ",
          g.engine);
    }
  }
  return md.empty() ? "" : md + "\n\n";
}

std::string TuningLine(const DatasetGroups& d) {
  constexpr int kFewTrials = 5;
  std::string md;
  for (const Group& g : d.groups) {
    if (g.ok > 0 && !g.autotune_budget.empty()) {
      md += fmt::format("`{}` tunes on its clock: {}", g.engine, g.autotune_budget);
      md += g.tuned_args.empty() ? ". " : fmt::format("; chosen: `{}`. ", g.tuned_args);
    }
    if (g.ok == 0 || g.autotune_finished < 0 || g.autotune_finished >= kFewTrials) continue;
    md += fmt::format(fmt::runtime(prose::Prose(prose::kBarelyTuned)), g.engine,
                      g.autotune_finished, g.autotune_finished == 1 ? "" : "s", kFewTrials) +
          " ";
  }
  return md.empty() ? "" : md + "\n\n";
}

}  // namespace sparsebench
