#pragma once

#include <string>

#include "harness/report/summary.h"

namespace sparsebench {

// For a dataset's external rows: the protocol each spoke and its CPU by phase (on the clock
// and off it), then a ⚠ line naming each engine the referee flagged for work off the clock,
// with its figures. "" when the dataset has no external row.
std::string ExternalCpu(const DatasetGroups& d);

}  // namespace sparsebench
