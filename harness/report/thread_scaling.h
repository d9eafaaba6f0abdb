#pragma once

#include <string>

#include "harness/report/summary.h"

namespace sparsebench {

// Below this share of the thread ratio a step between two thread counts is a scaling limit:
// 1.6× from 1 to 2 threads.
constexpr double kScalingEfficiency = 0.8;

// The "Thread scaling" section of a dataset: each engine that ran on one machine at more than
// one thread count, its samples/s and time to target at each count and its speed-up from the
// fewest threads, and the steps that fall short of kScalingEfficiency with what the engine's
// family says runs on the threads. "" when no engine ran at two thread counts on one machine.
std::string ThreadScaling(const DatasetGroups& d);

}  // namespace sparsebench
