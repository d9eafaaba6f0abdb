#include "harness/record/target_rule.h"

#include <cmath>
#include <string_view>

#include "engine/api/engine_error.h"
#include "engine/api/parse_number.h"

namespace sparsebench {

TargetRule TargetRule::Parse(const std::string& text) {
  TargetRule rule;
  if (text.empty()) return rule;
  const std::string prefix = "dense-", suffix = "pt";
  const std::string_view view(text);
  try {
    if (view.starts_with(prefix) && view.ends_with(suffix) &&
        view.size() > prefix.size() + suffix.size()) {
      const std::string_view points =
          view.substr(prefix.size(), view.size() - prefix.size() - suffix.size());
      rule.points_below_dense = ParseNumber<double>(points, "target", {0, 100});
    } else {
      rule.value = ParseNumber<double>(view, "target", {0, 1});
    }
  } catch (const ConfigError& e) {
    throw ConfigError(std::string(e.what()) +
                      ", or a rule such as \"dense-1pt\" (points below the best dense baseline)");
  }
  return rule;
}

double TargetRule::Resolve(double best_dense_metric) const {
  if (!std::isnan(value)) return value;
  if (std::isnan(points_below_dense) || std::isnan(best_dense_metric)) return NAN;
  return best_dense_metric - points_below_dense / 100.0;
}

}  // namespace sparsebench
