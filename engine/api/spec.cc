#include "engine/api/spec.h"

#include "engine/api/engine_error.h"
#include "engine/api/parse_number.h"

namespace sparsebench {

Spec Spec::Parse(std::string_view text) {
  Spec spec;
  const size_t colon = text.find(':');
  spec.family_ = std::string(text.substr(0, colon));
  if (spec.family_.empty())
    throw ConfigError("engine spec '" + std::string(text) + "' has no family");
  if (colon == std::string_view::npos) return spec;
  std::string_view rest = text.substr(colon + 1);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      throw ConfigError("engine spec item '" + std::string(item) + "' is not key=value");
    }
    auto [it, inserted] =
        spec.values_.emplace(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    if (!inserted) throw ConfigError("engine spec repeats key '" + it->first + "'");
  }
  return spec;
}

std::string Spec::String(const std::string& key, const std::string& fallback) {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  std::string value = it->second;
  values_.erase(it);
  return value;
}

double Spec::Double(const std::string& key, double fallback, double min, double max) {
  if (!values_.contains(key)) return fallback;
  return ParseNumber(String(key, ""), Name(key), NumberRange<double>{min, max});
}

int64_t Spec::Int(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  if (!values_.contains(key)) return fallback;
  return ParseNumber(String(key, ""), Name(key), NumberRange<int64_t>{min, max});
}

std::optional<double> Spec::AutoDouble(const std::string& key, double min, double max) {
  if (TakeAuto(key)) return std::nullopt;
  return Double(key, 0, min, max);
}

std::optional<int64_t> Spec::AutoInt(const std::string& key, int64_t min, int64_t max) {
  if (TakeAuto(key)) return std::nullopt;
  return Int(key, 0, min, max);
}

bool Spec::TakeAuto(const std::string& key) {
  const auto it = values_.find(key);
  if (it == values_.end()) return true;
  if (it->second != "auto") return false;
  values_.erase(it);
  return true;
}

std::string Spec::Name(const std::string& key) const {
  return "engine spec '" + family_ + "': " + key;
}

void Spec::Finish() const {
  if (values_.empty()) return;
  std::string keys;
  for (auto& [k, v] : values_) keys += (keys.empty() ? "" : ", ") + k;
  throw ConfigError("engine spec '" + family_ + "': unknown key(s) " + keys);
}

}  // namespace sparsebench
