#include "harness/context.h"

#include <sys/utsname.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "baselines/blas_info.h"
#include "baselines/versions.h"

namespace sparsebench {
namespace {

// The value after "key" and a colon on the first line of `file` that starts with key.
std::string FieldOf(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t colon = line.find_first_of(":=");
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t\""));
    while (!value.empty() && (value.back() == '"' || value.back() == ' ')) value.pop_back();
    return value;
  }
  return "";
}

std::string IsaFlags() {
  const std::set<std::string> wanted = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                                        "avx512_vnni", "avx512_bf16", "amx_tile", "asimd", "sve", "sve2", "bf16"};
  std::istringstream flags(FieldOf("/proc/cpuinfo", "flags") + " " + FieldOf("/proc/cpuinfo", "Features"));
  std::string out;
  for (std::string flag; flags >> flag;) {
    if (wanted.contains(flag) && out.find(flag + " ") == std::string::npos) out += flag + " ";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string Command(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 256> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
    pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string EnvOr(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

nlohmann::json CaptureContext() {
  utsname uts{};
  uname(&uts);
  std::string cpu = FieldOf("/proc/cpuinfo", "model name");
  if (cpu.empty()) cpu = Command("lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1");
  const double mem_kb = std::atof(FieldOf("/proc/meminfo", "MemTotal").c_str());
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json c = {
      {"cpu_model", cpu},
      {"cores", std::thread::hardware_concurrency()},
      {"arch", uts.machine},
      {"isa_flags", IsaFlags()},
      {"memory_gb", mem_kb / 1024 / 1024},
      {"os", FieldOf("/etc/os-release", "PRETTY_NAME") + ", Linux " + uts.release},
      {"compiler", std::string("gcc-compatible ") + __VERSION__},
      {"build_flags", SPARSEBENCH_BUILD_FLAGS},
      {"git_commit", Command("git -C '" SPARSEBENCH_SOURCE_DIR "' rev-parse HEAD 2>/dev/null")},
      {"git_dirty", !Command("git -C '" SPARSEBENCH_SOURCE_DIR "' status --porcelain --untracked-files=no 2>/dev/null").empty()},
      {"date", date},
      {"env_OMP_NUM_THREADS", EnvOr("OMP_NUM_THREADS")},
      {"env_OMP_WAIT_POLICY", EnvOr("OMP_WAIT_POLICY")},
      {"env_OPENBLAS_NUM_THREADS", EnvOr("OPENBLAS_NUM_THREADS")}};
  for (const auto& [key, value] : BlasContext()) c[key] = value;
  for (const auto& [key, value] : LibraryVersions()) c[key] = value;
  return c;
}

std::string MachineName(const nlohmann::json& context) {
  return context.value("cpu_model", std::string("unknown")) + ", " +
         std::to_string(context.value("cores", 0)) + " cores";
}

}  // namespace sparsebench
