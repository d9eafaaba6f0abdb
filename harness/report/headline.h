#pragma once

#include <string>

#include "harness/report/summary.h"

namespace sparsebench {

// The dense baseline whose final metric a "dense-Npt" target is taken from: the best median
// among those that trained to their end (their epochs or the plateau rule), or, where a
// budget stopped every one, the best of those (as ResolveTargets sets it); null when none.
const Group* TargetSetter(const DatasetGroups& d);

// How the target was set, and whether it is fair to call it a dense baseline's accuracy: only
// where the plateau rule ended the row that set it.
std::string TargetRuleText(const DatasetGroups& d);

// The dataset's headline: our LSH engine's time to target against the fastest dense baseline
// (medians, [min–max] over repeats), then its conditions: which row set the target and how its
// training ended, and, where that row was stopped early or our engine never reached the target,
// each side's metric at equal time. "" without our engine's row.
std::string Headline(const DatasetGroups& d);

}  // namespace sparsebench
