#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

namespace sparsebench {

// The values a numeric setting accepts: [min, max], or (min, max] when above_min.
template <typename T>
struct NumberRange {
  T min;
  T max;
  bool above_min = false;

  bool Contains(T value) const { return (above_min ? value > min : value >= min) && value <= max; }
  std::string Describe() const;  // "from 1 to 10000", "above 0 and at most 100"
};

// The whole of `text` as a base-10 T within `range`, or ConfigError("NAME: reason"). Refused:
// the empty string, NaN and infinities in any spelling, a '-' where T is unsigned, a fraction
// or exponent where T is an integer, values beyond T (overflow, or a double's underflow),
// leading spaces or '+', trailing characters, and values outside `range`. A double's -0
// becomes 0. Command-line options and engine spec values are all read through this.
template <typename T>
T ParseNumber(std::string_view text, std::string_view name, const NumberRange<T>& range);

// The shortest text that ParseNumber reads back as the same value (1e-07, 0.005, 10, 42).
std::string NumberText(double value);
std::string NumberText(std::integral auto value) { return std::to_string(value); }

extern template struct NumberRange<int>;
extern template struct NumberRange<int64_t>;
extern template struct NumberRange<uint32_t>;
extern template struct NumberRange<uint64_t>;
extern template struct NumberRange<double>;
extern template int ParseNumber(std::string_view, std::string_view, const NumberRange<int>&);
extern template int64_t ParseNumber(std::string_view, std::string_view,
                                    const NumberRange<int64_t>&);
extern template uint32_t ParseNumber(std::string_view, std::string_view,
                                     const NumberRange<uint32_t>&);
extern template uint64_t ParseNumber(std::string_view, std::string_view,
                                     const NumberRange<uint64_t>&);
extern template double ParseNumber(std::string_view, std::string_view, const NumberRange<double>&);

}  // namespace sparsebench
