#pragma once

#include <cmath>
#include <string>

namespace sparsebench {

// A target as a matrix writes it: a fixed value, or N points below the best dense final metric.
struct TargetRule {
  double value = NAN;                                // fixed target (NaN when relative or none)
  double points_below_dense = NAN;                   // relative target (NaN when fixed or none)
  static TargetRule Parse(const std::string& text);  // "" = none; ConfigError when malformed
  double Resolve(double best_dense_metric) const;    // NaN when it cannot be resolved
};

}  // namespace sparsebench
