#include "harness/record/machine.h"

#include <fmt/format.h>
#include <xxhash.h>

namespace sparsebench {

std::string HardwareKey(const nlohmann::json& c) {
  const auto text = [&](const char* key) {
    const auto it = c.find(key);
    return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto number = [&](const char* key) {
    const auto it = c.find(key);
    return it != c.end() && it->is_number() ? it->get<double>() : -1.0;
  };
  if (c.find("cpu_id") == c.end()) return "";  // written before the key was recorded
  return fmt::format("{} | {} | {} | {} | {:.0f} cores | {:.0f} GiB", text("cpu_model"),
                     text("cpu_id"), text("arch"), text("isa_flags"), number("cores"),
                     number("memory_gb"));
}

std::string MachineFingerprint(const nlohmann::json& context) {
  const std::string key = HardwareKey(context);
  return key.empty() ? "" : fmt::format("{:016x}", XXH64(key.data(), key.size(), 0)).substr(0, 8);
}

std::string MachineName(const nlohmann::json& context) {
  const std::string fingerprint = MachineFingerprint(context);
  return context.value("cpu_model", std::string("unknown")) + ", " +
         std::to_string(context.value("cores", 0)) + " cores" +
         (fingerprint.empty() ? "" : " [" + fingerprint + "]");
}

std::vector<nlohmann::json> ContextsIn(const nlohmann::json& file) {
  if (file.is_object()) return {file};
  std::vector<nlohmann::json> contexts;
  if (!file.is_array()) return contexts;
  for (const auto& item : file) {
    if (item.is_object()) contexts.push_back(item);
  }
  return contexts;
}

}  // namespace sparsebench
