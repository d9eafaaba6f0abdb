#include "harness/run/context.h"

#include <fmt/format.h>
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
#include "harness/record/machine.h"

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

// The value of the first line of /proc/cpuinfo whose name (before the colon, trimmed) is `key`:
// "model" must not match "model name".
std::string CpuInfoField(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    if (name != key) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "";
}

// x86 family/model/stepping, or an Arm CPU's implementer/part/variant/revision; "" where the
// kernel shows neither.
std::string CpuId() {
  std::string id;
  for (const char* key : {"cpu family", "model", "stepping", "CPU implementer", "CPU part",
                          "CPU variant", "CPU revision"}) {
    const std::string value = CpuInfoField(key);
    if (!value.empty()) id += (id.empty() ? "" : " ") + std::string(key) + " " + value;
  }
  return id;
}

std::string Hypervisor(const std::string& vendor, bool flagged) {
  if (!vendor.empty()) return vendor;
  return flagged ? "yes (the CPU's hypervisor flag; vendor not named)" : "none seen";
}

std::string IsaFlags() {
  const std::set<std::string> wanted = {
      "sse4_2",   "avx",         "avx2",        "fma",         "avx512f",    "avx512bw",
      "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx512ifma", "avx512_vbmi2",
      "avx_vnni", "amx_tile",    "amx_bf16",    "amx_int8",    "asimd",      "sve",
      "sve2",     "bf16",        "i8mm"};
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
      {"cpu_id", CpuId()},
      {"os", FieldOf("/etc/os-release", "PRETTY_NAME") + ", Linux " + uts.release},
      {"kernel", uts.release},
      {"hypervisor",
       Hypervisor(Command("lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p' | head -1"),
                  (" " + FieldOf("/proc/cpuinfo", "flags") + " ").find(" hypervisor ") !=
                      std::string::npos)},
      {"compiler", std::string("gcc-compatible ") + __VERSION__},
      {"build_flags", SPARSEBENCH_BUILD_FLAGS},
      {"git_commit", Command("git -C '" SPARSEBENCH_SOURCE_DIR "' rev-parse HEAD 2>/dev/null")},
      {"git_dirty", !Command("git -C '" SPARSEBENCH_SOURCE_DIR
                             "' status --porcelain --untracked-files=no 2>/dev/null")
                         .empty()},
      {"date", date},
      {"env_OMP_NUM_THREADS", EnvOr("OMP_NUM_THREADS")},
      {"env_OMP_WAIT_POLICY", EnvOr("OMP_WAIT_POLICY")},
      {"env_OPENBLAS_NUM_THREADS", EnvOr("OPENBLAS_NUM_THREADS")},
      {"env_GLIBC_TUNABLES", EnvOr("GLIBC_TUNABLES")}};
  for (const auto& [key, value] : BlasContext()) c[key] = value;
  for (const auto& [key, value] : LibraryVersions()) c[key] = value;
  c["hardware_key"] = HardwareKey(c);
  c["machine_fingerprint"] = MachineFingerprint(c);
  return c;
}

}  // namespace sparsebench
