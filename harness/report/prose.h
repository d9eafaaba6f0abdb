#pragma once

#include <string>
#include <string_view>

namespace sparsebench::prose {

// The report's fixed prose, one paragraph a raw string: clang-format leaves raw strings as
// written, so each wraps where a phrase ends. Prose() joins a paragraph's lines with spaces.
inline std::string Prose(std::string_view text) {
  std::string joined(text.substr(text.starts_with('\n') ? 1 : 0));
  while (joined.ends_with('\n')) joined.pop_back();
  for (char& c : joined) c = c == '\n' ? ' ' : c;
  return joined;
}

// The report's opening, before "## Machines"; {} is the list of dense baseline families.
inline constexpr std::string_view kOpening = R"(
Every number below was measured by `sparsebench run` on the machines listed; columns are
medians over repeats, [min–max] where there are several. Training seconds are the harness's
one clock for every engine: from the first touch of the loaded data to the last update, curve
evaluations excluded (see each dataset's note for what falls inside). Cost = training hours ×
the instance's on-demand price (harness/instances.csv); empty when the run was not given an
instance or price. Time to target is the median over all repeats, a repeat that never reached
it counting as never; a target written `dense-Npt` is N points below the best dense
baseline's final metric in the same run. Speed-up = the fastest dense baseline's ({}) time to
target, in whichever precision it ran (each dataset's note gives every row's), on the same
machine and threads, divided by this engine's. Recall columns (sparse engines): the share of
each probed training row's 5 best exact outputs, and of its true labels, that the selector put
in the active set. Peak memory is the cell's largest: the harness process, which holds the
dataset, and an external engine's processes measured together, plus files staged in memory
(fastText's input in /dev/shm). ⚠ marks a final metric below half the best row's; "⚠ work off
the clock", an external engine the referee flagged (the figures are on its line below the
dataset's CPU table).
)";

// The link to the history page (the one `sparsebench history report --html` writes), where it
// exists; {} is its path from the report.
inline constexpr std::string_view kHistoryLink = R"(
Results across commits, with their change points: [the history page]({}) (`sparsebench history
report --html results/history`).
)";

// A dataset's note on what differs between its rows.
inline constexpr std::string_view kDifferences = R"(
What differs between the rows: every engine runs on the same data and threads and is timed by
the harness's one clock (load and evaluation outside it).
)";
// {} is the list of engines that read the raw text.
inline constexpr std::string_view kSharedFeaturizer = R"(
Engines other than {} (which read the raw text) train on the shared featurizer's hashed
n-grams, featurized on the clock.
)";
inline constexpr std::string_view kOursIsDense = R"(
**Our engine is dense here** (every output neuron active, as for ≤ 1024 classes): the
comparison is dense vs dense, and a speed-up comes from the optimizer rule and the
implementation, not from output sparsity.
)";

// The ablation's closing sentence when random sampling never reaches the target.
inline constexpr std::string_view kRandomNeverReaches = R"(
Random sampling at the same active count does not reach the target, so the whole speed-up at
equal accuracy depends on LSH choosing the neurons
)";

// After the target rule, under "### At the target".
inline constexpr std::string_view kAtTheTarget = R"(
Time to target is the training seconds at the first curve point at or above it; equal time is
the moment the first engine on the same machine and threads reached it, and each engine's
value there is its last curve point at or before that moment. Curve points score a fixed
sample of the test set; the table above scores the whole test set.
)";

// Under a dataset's table when it has external rows.
inline constexpr std::string_view kExternalMark = R"(
⇄ marks an external engine, run as its own process over the protocol of
tools/engines/README.md; its latency includes one socket round trip
)";
// {0} the null engine's p50 latency, {1} its row's name.
inline constexpr std::string_view kNullRoundTrip = R"(
, {0} µs p50 here (`{1}`: the null engine, whose prediction costs nothing).
)";
inline constexpr std::string_view kNoNullRow = R"(
 (not measured in this run: it has no ok row of exec:null).
)";
inline constexpr std::string_view kExternalMemory = R"(
 Its peak memory is the cell's: the harness process (which holds the dataset, as for every
row) and the engine's processes measured together; the engine's own is in the table of
external engines.
)";

// {0} the row, {1} its autotune trials, {2} "s" or "", {3} the fewest that count as tuned.
inline constexpr std::string_view kBarelyTuned = R"(
⚠ `{0}` is barely tuned: its autotune search finished {1} trial{2} (fewer than {3}), so its
settings are close to the ones it started from.
)";

inline constexpr std::string_view kPublishedTitle =
    "## Published figures (the BOLT article; not measured by SparseBench)";
inline constexpr std::string_view kPublishedNote =
    "Costed from the same price table; never mixed with the measured rows above.";

// The headline (headline.cc). How a dense row's training ended: {0} epoch, {1} seconds, {2}
// patience, {3} the gain that counts, {4} held-out rows.
inline constexpr std::string_view kPlateauEnded = R"(
the plateau rule ended it at epoch {} ({} s): {} epochs without a new best{} on {} held-out
training rows
)";
// {0} epochs, {1} seconds, {2} in how many repeats.
inline constexpr std::string_view kOutOfEpochs = R"(
it ran out of epochs ({}, its cap) in {} s before the plateau rule stopped it{}: not shown
converged
)";
// {0} rows of the curves' test sample, {1} one standard error at the target.
inline constexpr std::string_view kSampleError = R"(
Curve points score one fixed sample of {} test rows, the same for every engine and repeat, so
the repeats' spread leaves out the sample's own error, ±{:.4f} at the target (one standard
error); with the target moved by it
)";
// {0} metric, {1} target, {2} points below, {3} the row that set it, {4} its final metric,
// {5} which dense rows it was the best of, {6} how its training ended.
inline constexpr std::string_view kTargetFromDense = R"(
The target, {0} {1:.4f}, is {2:g} point(s) below the final {0} of `{3}` ({4:.4f} on the whole
test set), the best dense baseline in this run {5}: {6}.
)";
inline constexpr std::string_view kTargetFair = R"(
That is fair to the dense side: it is the accuracy a dense baseline converged to, less a point
for the noise between runs, and every engine is timed to that same accuracy on the same
held-out sample.
)";
inline constexpr std::string_view kTargetEarly = R"(
So the target is an early accuracy, not a converged one: time to it measures early training,
and a speed-up to it says nothing about the accuracy each side ends at.
)";
inline constexpr std::string_view kStoppedDenseIsABound = R"(
A dense baseline that its budget stopped before the target gets no time; a speed-up over it
is a lower bound, `> N×`: its training seconds over this engine's time to target.
)";
// {0} our row, {1} metric, {2} target, {3} its time, {4} the dense row, {5} its time,
// {6} machine, {7} threads, {8} the repeats.
inline constexpr std::string_view kHeadlineReached = R"(
`{}` reaches {} {:.4f} in {} s; the fastest dense baseline, `{}`, in {} s (on {}, {} threads;
{}).
)";
// {0} our row, {1} metric, {2} target, {3} its time, {4} its repeats, {5} the bound, if any.
inline constexpr std::string_view kHeadlineNoDense = R"(
`{}` reaches {} {:.4f} in {} s ({}); no dense baseline on its machine and threads reached
it{}.
)";
// {0} our row, {1} metric, {2} target, {3} metric, {4} its final, {5} repeats, {6} its end.
inline constexpr std::string_view kHeadlineNotReached = R"(
`{}` does **not** reach {} {:.4f}: its final {} is {} ({}, {}), so there is no speed-up to
the target.
)";
// {0} the target as a percentage of {1}'s own final {2}, {3}.
inline constexpr std::string_view kEarlyTargetSpeedup = R"(
The speed-up is measured at that early target, {:.0f}% of `{}`'s own final {} ({:.4f}).
)";

// Under "### Thread scaling" (thread_scaling.cc): {0} the fewest threads, {1} the efficiency
// below which a step is named, in percent, {2} that efficiency times two.
inline constexpr std::string_view kThreadScaling = R"(
Each engine on one machine at each thread count. Speed-up = samples/s at more threads over
samples/s at {} (in parentheses, the same ratio of times to target where both reached it). A
step between two thread counts whose speed-up is below {:.0f}% of the thread ratio ({:.1f}×
from 1 to 2 threads) is named below as a scaling limit.
)";

// Above the table of external engines (report_external.cc).
inline constexpr std::string_view kExternalCpu = R"(
External engines' CPU seconds by phase and the engine's own peak memory, over every process
each started (first ok repeat; the referee's rule for work off the clock is in
tools/engines/README.md, "What the referee flags"):
)";

}  // namespace sparsebench::prose
