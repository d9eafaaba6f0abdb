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

}  // namespace sparsebench::prose
