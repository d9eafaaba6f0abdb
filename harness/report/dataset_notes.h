#pragma once

#include <string>

#include "harness/report/summary.h"

namespace sparsebench {

// The notes under a dataset's table, each "" when it has nothing to say.

// What differs between the rows: each engine's optimizer rule, precision and clock, the
// featurizer, and whether our engine runs dense.
std::string Differences(const DatasetGroups& d);

// "LSH vs random sampling vs dense" when the dataset has the ablation rows of our engine; only
// rows on the LSH row's machine and threads are set beside it (ratios of seconds from two
// machines would mean nothing), the others are named.
std::string Attribution(const DatasetGroups& d);

// What ⇄ means, the socket's round trip external rows' latency includes (the null engine's
// latency: its prediction costs nothing), and the rows that do not beat the null engine.
std::string ExternalRows(const DatasetGroups& d);

// Why a flagged (⚠) row scores far below the others, where its family knows the measured cause.
std::string WeakRows(const DatasetGroups& d);

// Each tuned row's search and retrain, both on its clock, with the settings chosen; those whose
// search finished too few trials to have tuned much (context autotune_finished_trials, the
// fewest over the repeats) are named.
std::string TuningLine(const DatasetGroups& d);

}  // namespace sparsebench
