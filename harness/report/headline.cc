#include "harness/report/headline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/api/engine_family.h"
#include "harness/record/target_rule.h"
#include "harness/report/prose.h"
#include "harness/report/report_text.h"

namespace sparsebench {
namespace {

// The median over a group's repeats of its curve value at `seconds`.
double ValueAt(const Group& g, double seconds) {
  std::vector<double> values;
  for (const Curve& curve : g.curves) {
    const double v = MetricAt(curve, seconds);
    if (!std::isnan(v)) values.push_back(v);
  }
  return Summarize(values).median;
}

std::string Repeats(const Group& g) {
  return g.ok == 1 ? "1 repeat" : fmt::format("{} repeats", g.ok);
}

// How the training of a group ended, as a clause.
std::string HowItEnded(const Group& g) {
  const std::string epoch = Num(g.epochs_trained.median, "{:.2f}");
  if (g.budget_stops > 0) {
    return fmt::format(
        "its training budget stopped it after {} s, at epoch {}{}", Sec(g.train_seconds.median),
        epoch,
        g.budget_stops < g.ok ? fmt::format(" ({} of {} repeats)", g.budget_stops, g.ok) : "");
  }
  if (g.patience_epochs > 0 && g.plateau_stops == g.ok) {
    return fmt::format(
        fmt::runtime(prose::Prose(prose::kPlateauEnded)), epoch, Sec(g.train_seconds.median),
        g.patience_epochs,
        g.min_improvement > 0 ? fmt::format(" (a gain of more than {:g})", g.min_improvement) : "",
        g.holdout_rows);
  }
  if (g.patience_epochs > 0) {
    return fmt::format(
        fmt::runtime(prose::Prose(prose::kOutOfEpochs)), epoch, Sec(g.train_seconds.median),
        g.plateau_stops > 0 ? fmt::format(" in {} of {} repeats", g.ok - g.plateau_stops, g.ok)
                            : "");
  }
  return fmt::format("it ran a fixed {} epochs ({} s)", epoch, Sec(g.train_seconds.median));
}

bool Converged(const Group& g) {
  return g.patience_epochs > 0 && g.plateau_stops == g.ok && g.budget_stops == 0;
}

// Our LSH engine's row; where the dataset has none (few classes: our engine runs dense), our
// engine's dense row.
const Group* Subject(const DatasetGroups& d) {
  for (const AblationRole role : {AblationRole::kSubject, AblationRole::kAllOutputsActive}) {
    for (const Group& g : d.groups) {
      if (g.ok > 0 && g.facts.role == role) return &g;
    }
  }
  return nullptr;
}

// The dense baseline with the least time to target on the subject's machine and threads.
const Group* FastestDense(const DatasetGroups& d, const Group& subject) {
  const Group* best = nullptr;
  for (const Group& g : d.groups) {
    if (!g.dense || g.ok == 0 || !SameMachineAndThreads(g, subject) ||
        !std::isfinite(g.time_to_target.median))
      continue;
    if (!best || g.time_to_target.median < best->time_to_target.median) best = &g;
  }
  return best;
}

// A group's times to `target` over its repeats (+inf: that repeat did not reach it).
Stat TimesTo(const Group& g, double target) {
  std::vector<double> times;
  for (const Curve& curve : g.curves)
    times.push_back(TimeToTarget(curve, target).value_or(INFINITY));
  return Summarize(times);
}

// "128 [116–133] s", "30 s", "90 [80–not reached] s" or "not reached".
std::string TimesText(const Stat& t) {
  if (!std::isfinite(t.median)) return "not reached";
  if (t.n == 1 || std::isfinite(t.max)) return SpreadSec(t) + " s";
  return Sec(t.median) + " [" + Sec(t.min) + "–not reached] s";
}

// Every curve point scores one fixed test sample, so the repeats' spread leaves out that
// sample's own error: time to the target moved by one standard error each way.
std::string SampleError(const DatasetGroups& d, const Group& subject, const Group& dense) {
  if (d.curve_sample_rows == 0 || !(d.target > 0 && d.target < 1)) return "";
  const double se = std::sqrt(d.target * (1 - d.target) / static_cast<double>(d.curve_sample_rows));
  std::string md =
      " " + fmt::format(fmt::runtime(prose::Prose(prose::kSampleError)), d.curve_sample_rows, se);
  for (const double target : {d.target - se, d.target + se}) {
    const Stat a = TimesTo(subject, target), b = TimesTo(dense, target);
    const bool both = std::isfinite(a.median) && std::isfinite(b.median);
    md += fmt::format("{} to {} {:.4f} `{}` takes {} and `{}` {}{}", target < d.target ? "," : ";",
                      d.metric, target, subject.engine, TimesText(a), dense.engine, TimesText(b),
                      both ? " (" + Times(b.median / a.median) + ")" : "");
  }
  return md + ".";
}

std::string AtEqualTime(const Group& a, const Group& b, double seconds, const std::string& when,
                        const std::string& metric) {
  return fmt::format(
      "At equal time, {} ({} s of training), `{}` had {} {} and `{}` {} (curve sample).", when,
      Sec(seconds), a.engine, metric, Num(ValueAt(a, seconds), "{:.4f}"), b.engine,
      Num(ValueAt(b, seconds), "{:.4f}"));
}

}  // namespace

const Group* TargetSetter(const DatasetGroups& d) {
  const Group *ended = nullptr, *stopped = nullptr;
  for (const Group& g : d.groups) {
    if (!g.dense || g.ok == 0 || std::isnan(g.metric.median)) continue;
    const Group*& best = g.budget_stops > 0 ? stopped : ended;
    if (!best || g.metric.median > best->metric.median) best = &g;
  }
  return ended ? ended : stopped;
}

std::string TargetRuleText(const DatasetGroups& d) {
  const Group* setter = TargetSetter(d);
  const double points = TargetRule::Parse(d.target_rule).points_below_dense;
  if (std::isnan(points) || setter == nullptr) {
    return fmt::format("The target, {} {:.4f}, is fixed by the matrix.", d.metric, d.target);
  }
  std::string md = fmt::format(fmt::runtime(prose::Prose(prose::kTargetFromDense) + " "), d.metric,
                               d.target, points, setter->engine, setter->metric.median,
                               setter->budget_stops > 0 ? "(a budget stopped every dense baseline)"
                                                        : "among those that trained to their end",
                               HowItEnded(*setter));
  if (Converged(*setter)) {
    md += prose::Prose(prose::kTargetFair);
  } else if (setter->budget_stops > 0) {
    md += prose::Prose(prose::kTargetEarly);
  } else {
    md += "So the target is the accuracy after that schedule, not shown to be a converged one.";
  }
  return md + " " + prose::Prose(prose::kStoppedDenseIsABound);
}

std::string Headline(const DatasetGroups& d) {
  const Group* subject = Subject(d);
  const Group* setter = TargetSetter(d);
  if (subject == nullptr || std::isnan(d.target)) return "";
  const Group* dense = FastestDense(d, *subject);
  std::string md = fmt::format("**Headline, {}:** ", d.dataset);
  if (subject->facts.role == AblationRole::kAllOutputsActive)
    md += fmt::format("(`{}` runs dense here: every output active.) ", subject->engine);
  const bool reached = std::isfinite(subject->time_to_target.median);
  if (reached && dense != nullptr) {
    md += fmt::format(
        fmt::runtime(prose::Prose(prose::kHeadlineReached)), subject->engine, d.metric, d.target,
        SpreadSec(subject->time_to_target), dense->engine, SpreadSec(dense->time_to_target),
        subject->machine, subject->threads,
        subject->ok == 1 && dense->ok == 1
            ? "one repeat each, so no spread is measured"
            : fmt::format("{} of `{}`, {} of `{}`; medians [min–max]", Repeats(*subject),
                          subject->engine, Repeats(*dense), dense->engine));
    md = fmt::format("{} Speed-up **{}{}**", md, subject->speedup_lower_bound ? "> " : "",
                     Times(subject->speedup));
    if (subject->time_to_target.n > 1 || dense->time_to_target.n > 1) {
      md += fmt::format(" [{}–{} pairing the extreme repeats]",
                        Times(dense->time_to_target.min / subject->time_to_target.max),
                        Times(dense->time_to_target.max / subject->time_to_target.min));
    }
    md += "." + SampleError(d, *subject, *dense);
  } else if (reached) {
    md +=
        fmt::format(fmt::runtime(prose::Prose(prose::kHeadlineNoDense)), subject->engine, d.metric,
                    d.target, SpreadSec(subject->time_to_target), Repeats(*subject),
                    subject->speedup_lower_bound ? ": speed-up > " + Times(subject->speedup) : "");
  } else {
    md += fmt::format(fmt::runtime(prose::Prose(prose::kHeadlineNotReached)), subject->engine,
                      d.metric, d.target, d.metric, Num(subject->metric.median, "{:.4f}"),
                      Repeats(*subject), HowItEnded(*subject));
    if (dense != nullptr) {
      md += " " + AtEqualTime(*subject, *dense, subject->train_seconds.median,
                              fmt::format("when `{}` ended", subject->engine), d.metric);
      md += " " + AtEqualTime(*subject, *dense, dense->time_to_target.median,
                              fmt::format("when `{}` reached the target", dense->engine), d.metric);
    }
  }
  if (setter != nullptr && !std::isnan(TargetRule::Parse(d.target_rule).points_below_dense)) {
    md += fmt::format(" Conditions: the target is set by `{}` (final {} {:.4f}; {}).",
                      setter->engine, d.metric, setter->metric.median, HowItEnded(*setter));
    if (setter->budget_stops > 0 && reached) {
      md += " " +
            fmt::format(fmt::runtime(prose::Prose(prose::kEarlyTargetSpeedup)),
                        100 * d.target / subject->metric.median, subject->engine, d.metric,
                        subject->metric.median) +
            " ";
      md += AtEqualTime(*subject, *setter, setter->train_seconds.median,
                        fmt::format("when `{}`'s budget ended", setter->engine), d.metric);
    } else if (!Converged(*setter)) {
      md += " The target is not shown to be a converged accuracy.";
    }
  }
  return md + "\n\n";
}

}  // namespace sparsebench
