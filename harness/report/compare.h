#pragma once

#include <string>
#include <vector>

#include "engine/api/engine_family.h"

namespace sparsebench {

// Two-sided p-value of the Mann-Whitney U test (exact without ties, normal approximation
// with tie correction otherwise), as Google Benchmark's compare.py uses it.
double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

struct CompareOptions {
  std::string baseline, current;  // run directories or results.csv files
  double max_slowdown = 0.10;     // fraction
  double max_metric_drop = 0.5;   // percentage points
  std::string reference{};  // the engine whose time divides the others' across machines ("": the
                            // registry's first dense baseline)
  double alpha = 0.05;
  size_t min_repeats = 4;  // below this on either side the ratio bound alone decides
};

struct CompareResult {
  std::string markdown;
  bool regression = false;
};

CompareResult Compare(const CompareOptions& options,
                      const EngineRegistry& engines);

}  // namespace sparsebench
