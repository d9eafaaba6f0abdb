#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace sparsebench {

// A number for a report cell: "—" when it is NaN.
inline std::string Num(double v, const char* format = "{:.3g}") {
  return std::isnan(v) ? "—" : fmt::format(fmt::runtime(format), v);
}

// Seconds: three significant digits, whole seconds from 1000 on (never an exponent).
inline std::string Sec(double v) { return v >= 999.5 ? fmt::format("{:.0f}", v) : Num(v); }

}  // namespace sparsebench
