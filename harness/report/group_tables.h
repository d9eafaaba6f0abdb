#pragma once

#include <string>
#include <vector>

#include "harness/report/summary.h"

namespace sparsebench {

// The report's tables of one dataset's groups, and the texts their cells share with its notes.

// The median with [min–max] where there are several ("—" for none).
std::string Spread(const Stat& s, const char* format = "{:.3g}");
// "12.3×", "> 12.3×" for a lower bound, or why there is no ratio.
std::string SpeedupText(const Group& g);
// Time to target over repeats, saying in how many it was not reached.
std::string TimeToTargetText(const Group& g);
// The best median final metric of the groups with an ok repeat; NaN when none.
double BestMetric(const std::vector<Group>& groups);

// One row per group: time, metric, time to target, throughput, recall, latency, memory, cost
// and speed-up.
std::string GroupTable(const std::vector<Group>& groups);

// "### At the target": how long each engine took to reach the target, and what each had
// reached when the first engine got there, both read off the curves; "" without a target.
std::string AtTheTarget(const DatasetGroups& d);

}  // namespace sparsebench
