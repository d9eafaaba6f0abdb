#include "harness/report/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/api/engine_family.h"
#include "harness/proc/subprocess.h"
#include "harness/record/csv.h"
#include "harness/record/files.h"
#include "harness/record/machine.h"
#include "harness/record/prices.h"
#include "harness/record/rows.h"
#include "harness/report/headline.h"
#include "harness/report/report_external.h"
#include "harness/report/report_text.h"
#include "harness/report/summary.h"
#include "harness/report/thread_scaling.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

std::string Spread(const Stat& s, const char* format = "{:.3g}") {
  if (s.n == 0) return "—";
  if (s.n == 1) return Num(s.median, format);
  return Num(s.median, format) + " [" + Num(s.min, format) + "–" + Num(s.max, format) + "]";
}

std::string SpeedupText(const Group& g) {
  if (!std::isnan(g.speedup)) return (g.speedup_lower_bound ? "> " : "") + Times(g.speedup);
  return g.speedup_note.empty() ? "—" : g.speedup_note;
}

std::string TrainSecondsText(const Group& g) {
  if (g.budget_stops == 0) return SpreadSec(g.train_seconds);
  return SpreadSec(g.train_seconds) +
         (g.budget_stops == g.ok ? " (budget)"
                                 : fmt::format(" ({} of {} by budget)", g.budget_stops, g.ok));
}

std::string Slug(const std::string& text) {
  std::string s;
  for (char c : text) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

// A context.json field of the expected type, or the fallback: contexts come from files that
// may be old, hand-edited or from another version.
std::string ContextText(const nlohmann::json& c, const char* key, const std::string& fallback) {
  const auto it = c.find(key);
  return it != c.end() && it->is_string() ? it->get<std::string>() : fallback;
}
double ContextNumber(const nlohmann::json& c, const char* key) {
  const auto it = c.find(key);
  return it != c.end() && it->is_number() ? it->get<double>() : NAN;
}

// One row per run context: the hardware that decides "one machine" (its fingerprint hashes the
// CPU, its family/model/stepping, ISA, cores and memory) and, beside it, what may differ
// between VMs of that hardware.
std::string MachineTable(const std::vector<nlohmann::json>& contexts) {
  std::string md =
      "| machine | fingerprint | CPU | ISA | kernel · hypervisor | BLAS core | instance | $/h | "
      "commit | date |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : contexts) {
    const double price = ContextNumber(c, "price_per_hour");
    const std::string fingerprint = MachineFingerprint(c);
    md +=
        fmt::format("| {}, {} cores, {} GiB | {} | {} | {} | {} · {} | {} | {} | {} | {} | {} |\n",
                    ContextText(c, "cpu_model", "?"), Num(ContextNumber(c, "cores"), "{:.0f}"),
                    Num(ContextNumber(c, "memory_gb"), "{:.0f}"),
                    fingerprint.empty() ? "— (not recorded)" : fingerprint,
                    ContextText(c, "arch", "?") +
                        (c.contains("cpu_id") ? ", " + ContextText(c, "cpu_id", "") : ""),
                    ContextText(c, "isa_flags", ""), ContextText(c, "kernel", "—"),
                    ContextText(c, "hypervisor", "—"), ContextText(c, "blas_core", "—"),
                    ContextText(c, "instance", "?"), price >= 0 ? fmt::format("{:g}", price) : "—",
                    ContextText(c, "git_commit", "").substr(0, 10), ContextText(c, "date", ""));
  }
  return md;
}

// The contexts in a run directory's context.json: one object (a run) or a list (a report).
void ReadContexts(const fs::path& file, std::vector<nlohmann::json>& contexts) {
  std::error_code error;
  if (!fs::is_regular_file(file, error) || fs::file_size(file, error) > (16u << 20)) return;
  std::ifstream in(file, std::ios::binary);
  const nlohmann::json c = nlohmann::json::parse(in, nullptr, false);
  if (c.is_object()) contexts.push_back(c);
  if (c.is_array()) {
    for (const auto& item : c) {
      if (item.is_object()) contexts.push_back(item);
    }
  }
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
    if (g.ok > 0 && !std::isnan(g.metric.median)) best = std::isnan(best) ? g.metric.median : std::max(best, g.metric.median);
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
    const std::string recall = std::isnan(g.active_recall.median)
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

// One paragraph per dataset saying what differs between its rows.
std::string Differences(const DatasetGroups& d, const EngineRegistry& engines) {
  std::map<std::string, std::string> optimizer, clock, precision;
  std::vector<std::string> text_readers;
  bool any_sparse_output = false, any_ours = false, text_data = false;
  for (const Group& g : d.groups) {
    if (g.ok == 0) continue;
    const EngineFamily* family = engines.Find(g.spec);
    const SpecFacts facts = engines.FactsOf(g.spec);
    if (!g.optimizer.empty()) optimizer[g.engine] = g.optimizer;
    precision[g.engine] = g.precision.empty() ? "not recorded" : g.precision;
    clock[g.engine] = facts.clock_covers.empty() ? "not stated by its family" : facts.clock_covers;
    if (family != nullptr && family->ours) {
      any_ours = true;
      any_sparse_output |= !facts.all_outputs_active;
    }
    if (engines.ReadsText(g.spec)) text_readers.push_back("`" + g.engine + "`");
    text_data |= family != nullptr && family->needs_text;
  }
  std::string md = "What differs between the rows: every engine runs on the same data and threads and is timed by the "
                   "harness's one clock (load and evaluation outside it).";
  for (const auto& [engine, rule] : optimizer) {
    md += fmt::format(" `{}`: {}; precision: {}; clock: {}.", engine, rule, precision[engine],
                      clock[engine]);
  }
  if (text_data) {
    md += fmt::format(
        " Engines other than {} (which read the raw text) train on the shared featurizer's hashed "
        "n-grams, "
        "featurized on the clock.",
        fmt::join(text_readers, ", "));
  }
  if (any_ours && !any_sparse_output) {
    md += " **Our engine is dense here** (every output neuron active, as for ≤ 1024 classes): the comparison is dense vs "
          "dense, and a speed-up comes from the optimizer rule and the implementation, not from output sparsity.";
  }
  return md + "\n\n";
}

// "LSH vs random sampling vs dense" when the dataset has the ablation rows of our engine; only
// rows on the LSH row's machine and threads are set beside it (ratios of seconds from two
// machines would mean nothing), the others are named.
std::string Attribution(const DatasetGroups& d, const EngineRegistry& engines) {
  const Group *lsh = nullptr, *random = nullptr, *dense = nullptr, *baseline = nullptr;
  for (const Group& g : d.groups) {
    if (g.ok > 0 && engines.FactsOf(g.spec).role == AblationRole::kSubject) {
      lsh = &g;
      break;
    }
  }
  if (!lsh || !std::isfinite(lsh->time_to_target.median)) return "";
  std::vector<std::string> elsewhere;
  for (const Group& g : d.groups) {
    if (g.ok == 0 || &g == lsh) continue;
    const AblationRole role = engines.FactsOf(g.spec).role;
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
  if (random) md += versus(*random, "uniform sampling, same active count", "LSH over random sampling");
  if (dense) md += versus(*dense, "our engine dense", "sparsity with LSH over dense");
  if (baseline)
    md += fmt::format("; fastest dense baseline `{}` {} s ({:.2f}×)", baseline->engine,
                      Sec(baseline->time_to_target.median), baseline->time_to_target.median / t);
  if (random && !std::isfinite(random->time_to_target.median) &&
      (baseline || lsh->speedup_lower_bound)) {
    md += ". Random sampling at the same active count does not reach the target, so the whole speed-up at equal "
          "accuracy depends on LSH choosing the neurons";
  }
  if (!elsewhere.empty()) {
    md += fmt::format(". Not compared, on other machines or threads than `{}`: {}", lsh->engine,
                      fmt::join(elsewhere, ", "));
  }
  return md + ".\n\n";
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

// The two comparisons at the target, both read off the curves: how long each engine took to
// reach it, and what each had reached when the first engine got there.
std::string AtTheTarget(const DatasetGroups& d) {
  if (std::isnan(d.target)) return "";
  std::string md = "### At the target\n\n" + TargetRuleText(d) +
                   " Time to target is the training seconds at the first curve point at or above "
                   "it; equal time is the "
                   "moment the first engine on the same machine and threads reached it, and each "
                   "engine's value there "
                   "is its last curve point at or before that moment. Curve points score a fixed "
                   "sample of the test "
                   "set; the table above scores the whole test set.\n\n";
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

// What ⇄ means, the socket's round trip external rows' latency includes (the null engine's
// latency: its prediction costs nothing), and the rows that do not beat the null engine.
std::string FloorLine(const DatasetGroups& d, const Group& null, const EngineRegistry& engines);

std::string ExternalRows(const DatasetGroups& d, const EngineRegistry& engines) {
  const Group* null = nullptr;
  bool any = false;
  for (const Group& g : d.groups) {
    any |= g.external;
    if (g.ok > 0 && engines.FactsOf(g.spec).null_engine && null == nullptr) null = &g;
  }
  if (!any) return "";
  std::string md =
      "⇄ marks an external engine, run as its own process over the protocol of "
      "tools/engines/README.md; "
      "its latency includes one socket round trip";
  md +=
      null != nullptr
          ? fmt::format(", {} µs p50 here (`{}`: the null engine, whose prediction costs nothing).",
                        Num(null->latency_p50.median, "{:.0f}"), null->engine)
          : std::string(" (not measured in this run: it has no ok row of exec:null).");
  md +=
      " Its peak memory is the cell's: the harness process (which holds the dataset, as for "
      "every row) and the engine's processes measured together; the engine's own is in the "
      "table of external engines.";
  return null == nullptr ? md + "\n\n" : md + "\n\n" + FloorLine(d, *null, engines) + "\n\n";
}

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
std::string FloorLine(const DatasetGroups& d, const Group& null, const EngineRegistry& engines) {
  std::vector<std::string> floor;
  for (const Group& g : d.groups) {
    if (&g == &null || g.ok == 0) continue;
    const double margin =
        FloorMargin(g.metric.median, null.metric.median, std::min(g.test_rows, null.test_rows));
    const double above = g.metric.median - null.metric.median;
    if (above > (std::isnan(margin) ? 0.0 : margin)) continue;
    const std::string note = engines.WeakNote(g.spec, d.metric);
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

// Why a flagged (⚠) row scores far below the others, where its family knows the measured cause.
std::string WeakRows(const DatasetGroups& d, const EngineRegistry& engines) {
  const double best = BestMetric(d.groups);
  std::string md;
  for (const Group& g : d.groups) {
    if (g.ok == 0 || std::isnan(best) || !(g.metric.median < 0.5 * best)) continue;
    const std::string note = engines.WeakNote(g.spec, d.metric);
    if (g.budget_stops > 0) {
      md += fmt::format(
          "`{}` scores far below the others: its training budget stopped it after {} s, at epoch "
          "{}. ",
          g.engine, Sec(g.train_seconds.median), Num(g.epochs_trained.median, "{:.2f}"));
    } else if (!note.empty()) {
      md += fmt::format("`{}` scores far below the others: {}. ", g.engine, note);
    } else {
      md += fmt::format("`{}` scores below half the best row; no measured explanation is recorded for it. ", g.engine);
    }
  }
  return md.empty() ? "" : md + "\n\n";
}

// Each tuned row's search and retrain, both on its clock, with the settings chosen; those whose
// search finished too few trials to have tuned much (context autotune_finished_trials, the
// fewest over the repeats) are named.
std::string TuningLine(const DatasetGroups& d) {
  constexpr int kFewTrials = 5;
  std::string md;
  for (const Group& g : d.groups) {
    if (g.ok > 0 && !g.autotune_budget.empty()) {
      md += fmt::format("`{}` tunes on its clock: {}", g.engine, g.autotune_budget);
      md += g.tuned_args.empty() ? ". " : fmt::format("; chosen: `{}`. ", g.tuned_args);
    }
    if (g.ok == 0 || g.autotune_finished < 0 || g.autotune_finished >= kFewTrials) continue;
    md += fmt::format(
        "⚠ `{}` is barely tuned: its autotune search finished {} trial{} (fewer than {}), so its "
        "settings are close to the ones it started from. ",
        g.engine, g.autotune_finished, g.autotune_finished == 1 ? "" : "s", kFewTrials);
  }
  return md.empty() ? "" : md + "\n\n";
}

std::string PublishedTable(const std::string& published_path, const std::string& prices_path) {
  if (!fs::exists(published_path)) return "";
  std::map<std::string, double> prices;
  for (const Instance& i : ReadInstances(prices_path)) prices[i.name] = i.usd_per_hour;
  const auto rows = ReadCsv(published_path);
  std::string md =
      "## Published figures (the BOLT article; not measured by SparseBench)\n\n"
      "Costed from the same price table; never mixed with the measured rows above.\n\n"
      "| dataset | system | hardware | seconds | metric | cost $ |\n|---|---|---|---|---|---|\n";
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    if (f.size() < 7) continue;
    const double seconds = std::atof(f[4].c_str());
    const auto price = prices.find(f[3]);
    md += fmt::format("| {} | {} | {} | {:g} | {} | {} |\n", f[0], f[1], f[2], seconds,
                      f[6].empty() ? "—" : f[5] + " " + f[6],
                      price == prices.end() ? "— (instance not stated)" : fmt::format("{:.4f}", seconds / 3600 * price->second));
  }
  return md + "\n";
}

// A label as one tab-separated gnuplot data field: no tabs, line breaks or quotes.
std::string DataLabel(const std::string& text) {
  std::string label;
  for (unsigned char c : text) label += c < 0x20 || c == 0x7f ? ' ' : c == '"' ? '\'' : static_cast<char>(c);
  return label;
}

std::string DataNumber(double v) { return std::isfinite(v) ? fmt::format("{:.9g}", v) : "NaN"; }

// One script for every dataset. Nothing a user wrote is ever part of it: names, labels and
// paths arrive as data, the labels in the data files' header and first column, the rest as
// gnuplot's ARG variables (`gnuplot -c plot.gp ARG1 ...`), which are strings, never code.
// ARG1: plots directory, ARG2: file stem, ARG3: dataset, ARG4: metric, ARG5: curve files,
// ARG6: "1" when the bars are costs.
constexpr const char* kPlotScript =
    R"gp(# Written by sparsebench report; run as gnuplot -c plot.gp DIR STEM DATASET METRIC CURVES PRICED
set terminal pngcairo size 900,640 noenhanced
set datafile separator "\t"
set key below
set grid
stem = ARG1 . "/" . ARG2
curves = ARG5 + 0
if (curves > 0) {
  set output stem . "-curves.png.tmp"
  set logscale x
  set xlabel "training seconds"
  set ylabel ARG4
  set title ARG3 . ": time to accuracy"
  plot for [i=0:curves-1] sprintf("%s-curve%d.dat", stem, i) using 1:2 with linespoints title columnheader(3)
  unset logscale x
}
set output stem . "-cost.png.tmp"
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel (ARG6 eq "1" ? "USD per run" : "training seconds")
set title ARG3 . (ARG6 eq "1" ? ": cost per run" : ": training time (no price given)")
set xlabel ""
plot stem . "-bars.dat" using 0:2:xtic(1) with boxes notitle
)gp";

// gnuplot writes STEM-*.png.tmp; only a run that ended well renames them onto the plots the
// report links, so a failed or killed gnuplot never leaves a half-written PNG there.
void PublishPlots(const fs::path& plots, const std::string& stem, bool ran) {
  for (const char* kind : {"-curves.png", "-cost.png"}) {
    const fs::path done = plots / (stem + kind), temporary = plots / (stem + kind + ".tmp");
    std::error_code error;
    if (!fs::exists(temporary, error)) continue;
    if (ran) fs::rename(temporary, done, error);
    if (!ran || error) fs::remove(temporary, error);
  }
}

// Curves (first repeat of each group) and cost bars through gnuplot, into files named
// STEM-curves.png and STEM-cost.png; "" when it ran.
std::string Plot(const std::string& stem, const std::string& dataset, const std::vector<Group>& groups, const fs::path& plots) {
  const std::string gnuplot = FindExecutable("gnuplot");
  if (gnuplot.empty()) return "gnuplot not installed";
  size_t curves = 0;
  std::string bars = "label\tvalue\n";
  for (const Group& g : groups) {
    std::string points;
    for (const CurvePoint& p : g.curves.empty() ? Curve{} : g.curves.front()) {
      if (p.usable()) points += DataNumber(*p.seconds) + "\t" + DataNumber(*p.value) + "\t0\n";
    }
    if (!points.empty()) {
      const std::string label = DataLabel(fmt::format("{} ({}t, {})", g.engine, g.threads, g.machine.substr(0, 24)));
      WriteFileAtomically((plots / fmt::format("{}-curve{}.dat", stem, curves++)).string(),
                          "seconds\tvalue\t" + label + "\n" + points);
    }
    bars += DataLabel(fmt::format("{} {}t", g.engine, g.threads)) + "\t" +
            DataNumber(std::isnan(g.cost.median) ? g.train_seconds.median : g.cost.median) + "\n";
  }
  const bool priced = !groups.empty() && !std::isnan(groups[0].cost.median);
  WriteFileAtomically((plots / (stem + "-bars.dat")).string(), bars);
  const fs::path script = fs::absolute(plots / "plot.gp");
  WriteFileAtomically(script.string(), kPlotScript);
  const std::string metric = groups.empty() ? std::string("metric") : groups[0].metric_name;
  // A gnuplot failure leaves its message in the .gp.err file; the report still links the plots.
  const ProcessResult run = RunProcess({gnuplot, "-c", script.string(), fs::absolute(plots).string(), stem, dataset,
                                        metric, std::to_string(curves), priced ? "1" : "0"},
                                       plots / (stem + ".gp.out"), plots / (stem + ".gp.err"));
  PublishPlots(plots, stem, run.ok());
  return "";
}

}  // namespace

void WriteReport(const ReportOptions& o, const EngineRegistry& engines) {
  const fs::path out(o.out_dir), plots = out / "plots";
  EnsureDirectory(o.out_dir);
  if (o.plots) EnsureDirectory(plots.string());
  const std::vector<CellResult> rows = LoadRows(o.run_dirs, engines);
  std::vector<nlohmann::json> contexts;
  for (const std::string& dir : o.run_dirs) ReadContexts(fs::path(dir) / "context.json", contexts);
  if (o.run_dirs.size() != 1 || fs::weakly_canonical(o.run_dirs[0]) != fs::weakly_canonical(out)) {
    WriteFileAtomically((out / "context.json").string(), nlohmann::json(contexts).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  WriteResultFiles(rows, o.out_dir);
  std::string md =
      "# SparseBench report\n\nEvery number below was measured by `sparsebench run` on the "
      "machines listed; "
      "columns are medians over repeats, [min–max] where there are several. Training seconds are "
      "the "
      "harness's one clock for every engine: from the first touch of the loaded data to the last "
      "update, "
      "curve evaluations excluded (see each dataset's note for what falls inside). Cost = training "
      "hours × the instance's on-demand price (harness/instances.csv); "
      "empty when the run was not given an instance or price. Time to target is the median over "
      "all repeats, a "
      "repeat that never reached it counting as never; a target written `dense-Npt` is N points "
      "below the best "
      "dense baseline's final metric in the same run. Speed-up = the fastest dense baseline's (" +
      fmt::format("{}", fmt::join(engines.DenseBaselineNames(), ", ")) +
      ") time to target, in whichever precision it ran (each dataset's note gives every row's), "
      "on the same machine and threads, divided by this engine's. Recall columns "
      "(sparse "
      "engines): the share of each probed training row's 5 best exact outputs, and of its true "
      "labels, that "
      "the selector put in the active set. Peak memory is the cell's largest: the harness "
      "process, which holds the dataset, and an external engine's processes measured together, "
      "plus files staged in memory (fastText's input in /dev/shm). "
      "⚠ marks a final metric below half the best row's; "
      "\"⚠ work off the clock\", an external engine the referee flagged (the figures are on its "
      "line below the dataset's CPU table).\n\n## "
      "Machines\n\n" +
      MachineTable(contexts) + "\n";
  const std::vector<DatasetGroups> datasets = GroupRows(rows, engines);
  for (size_t i = 0; i < datasets.size(); ++i) {
    const DatasetGroups& d = datasets[i];
    md += fmt::format("## {} ({}, target {})\n\n", d.dataset, d.metric, Num(d.target, "{:.4g}")) +
          Headline(d, engines) + Differences(d, engines) + GroupTable(d.groups) + "\n" +
          ExternalRows(d, engines) + ExternalCpu(d) + WeakRows(d, engines) + TuningLine(d) +
          AtTheTarget(d) + Attribution(d, engines) + ThreadScaling(d, engines);
    // Plot files: an index (distinct names whatever the datasets are called) and a slug.
    const std::string stem = fmt::format("{}-{}", i + 1, Slug(d.dataset).substr(0, 40));
    const std::string missing = o.plots ? Plot(stem, d.dataset, d.groups, plots) : "not asked for";
    if (missing.empty()) {
      md += fmt::format("![{0} time to accuracy](plots/{1}-curves.png) ![{0} cost](plots/{1}-cost.png)\n\n", d.dataset, stem);
    } else {
      md += "(no plots: " + missing + ")\n\n";
    }
  }
  md += PublishedTable(o.published_path, o.prices_path);
  WriteFileAtomically((out / "report.md").string(), md);
}

}  // namespace sparsebench
