#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sparsebench {

// "family:key=value,key=value" as used by --engine; keys are checked by whoever consumes them.
class Spec {
 public:
  static Spec Parse(std::string_view text);  // throws ConfigError

  const std::string& family() const { return family_; }
  // Typed getters remove the key they read; Finish() then rejects any key nobody asked for.
  std::string String(const std::string& key, const std::string& fallback);
  double Double(const std::string& key, double fallback, double min, double max);
  int64_t Int(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  // A key that may also be "auto": nullopt when it is, or when it is absent.
  std::optional<double> AutoDouble(const std::string& key, double min, double max);
  std::optional<int64_t> AutoInt(const std::string& key, int64_t min, int64_t max);
  void Finish() const;

 private:
  bool TakeAuto(const std::string& key);           // absent, or "auto" (then taken)
  std::string Name(const std::string& key) const;  // how errors name the key
  std::string family_;
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace sparsebench
