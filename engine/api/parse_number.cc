#include "engine/api/parse_number.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <type_traits>

#include "engine/api/engine_error.h"

namespace sparsebench {
namespace {

template <typename T>
std::string TypeName() {
  if constexpr (std::is_floating_point_v<T>) return "a 64-bit float";
  const std::string bits = sizeof(T) == 4 ? "32" : "64";
  return std::is_signed_v<T> ? "a " + bits + "-bit integer" : "a " + bits + "-bit unsigned integer";
}

// The value as the message quotes it: at most 40 bytes, control characters as '?'.
std::string Quoted(std::string_view text) {
  std::string out(text.substr(0, 40));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "'" + out + (text.size() > 40 ? "...'" : "'");
}

// "nan", "-NaN", "nan(0x1)", "inf", "+Infinity": what a float parser would take for NaN or
// infinity, case aside.
bool SpellsWord(std::string_view text, std::string_view word) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  if (text.size() < word.size()) return false;
  return std::equal(word.begin(), word.end(), text.begin(), [](char w, char c) {
    return std::tolower(static_cast<unsigned char>(c)) == w;
  });
}

template <typename T>
std::string Problem(std::string_view text, T& value) {
  constexpr bool kInteger = std::is_integral_v<T>;
  const std::string quoted = Quoted(text);
  if (text.empty()) return "the value is empty";
  if (SpellsWord(text, "nan")) return quoted + " is NaN, not a number";
  if (SpellsWord(text, "inf")) return quoted + " is infinite";
  if (std::is_unsigned_v<T> && text[0] == '-') return quoted + " is negative";
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::result_out_of_range) return quoted + " does not fit in " + TypeName<T>();
  if (error != std::errc()) return quoted + " is not a number";
  if (stop != end) {
    if (kInteger && (*stop == '.' || *stop == 'e' || *stop == 'E'))
      return quoted + " is not an integer";
    return quoted + " has trailing characters after the number";
  }
  return "";
}

}  // namespace

template <typename T>
std::string NumberRange<T>::Describe() const {
  const std::string what = std::is_integral_v<T> ? "an integer " : "a number ";
  if (above_min) return what + "above " + NumberText(min) + " and at most " + NumberText(max);
  return what + "from " + NumberText(min) + " to " + NumberText(max);
}

template <typename T>
T ParseNumber(std::string_view text, std::string_view name, const NumberRange<T>& range) {
  T value{};
  std::string problem = Problem(text, value);
  if (problem.empty() && !range.Contains(value)) problem = Quoted(text) + " is out of range";
  if (!problem.empty())
    throw ConfigError(std::string(name) + ": " + problem + "; expected " + range.Describe());
  if constexpr (std::is_floating_point_v<T>) value += T{0};  // -0 becomes 0
  return value;
}

std::string NumberText(double value) {
  std::array<char, 32> buffer;
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), end);
}

template struct NumberRange<int>;
template struct NumberRange<int64_t>;
template struct NumberRange<uint32_t>;
template struct NumberRange<uint64_t>;
template struct NumberRange<double>;
template int ParseNumber(std::string_view, std::string_view, const NumberRange<int>&);
template int64_t ParseNumber(std::string_view, std::string_view, const NumberRange<int64_t>&);
template uint32_t ParseNumber(std::string_view, std::string_view, const NumberRange<uint32_t>&);
template uint64_t ParseNumber(std::string_view, std::string_view, const NumberRange<uint64_t>&);
template double ParseNumber(std::string_view, std::string_view, const NumberRange<double>&);

}  // namespace sparsebench
