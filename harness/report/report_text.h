#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "harness/report/summary.h"

namespace sparsebench {

// A number for a report cell: "—" when it is NaN.
inline std::string Num(double v, const char* format = "{:.3g}") {
  return std::isnan(v) ? "—" : fmt::format(fmt::runtime(format), v);
}

// Seconds: three significant digits, whole seconds from 1000 on (never an exponent).
inline std::string Sec(double v) { return v >= 999.5 ? fmt::format("{:.0f}", v) : Num(v); }

// Seconds over repeats: the median, with [min–max] where there are several.
inline std::string SpreadSec(const Stat& s) {
  if (s.n == 0) return "—";
  if (s.n == 1) return Sec(s.median);
  return Sec(s.median) + " [" + Sec(s.min) + "–" + Sec(s.max) + "]";
}

// A ratio as the speed-up column writes it: two significant digits below 0.1 (never "0.0×").
inline std::string Times(double r) {
  return fmt::format(fmt::runtime(r < 0.095 ? "{:.2g}×" : "{:.1f}×"), r);
}

}  // namespace sparsebench
