#include "baselines/versions.h"

#include <array>
#include <cstdio>

#ifdef SPARSEBENCH_HAVE_TORCH
#include <ATen/Version.h>
#include <torch/version.h>
#endif

namespace sparsebench {
namespace {

std::string PackageVersion(const std::string& package) {
  std::string out;
  const std::string command = "dpkg-query -W -f='${Version}' " + package + " 2>/dev/null";
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 128> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
    pclose(pipe);
  }
  return out.empty() ? "unknown" : out;
}

}  // namespace

std::map<std::string, std::string> LibraryVersions() {
  std::map<std::string, std::string> v;
  v["fasttext_version"] = PackageVersion("libfasttext-dev");  // the library the learner links
  v["openblas_package"] = PackageVersion("libopenblas0-pthread");
#ifdef SPARSEBENCH_HAVE_TORCH
  v["torch_version"] = TORCH_VERSION;
  v["torch_blas"] = TorchBlasInfo();
#else
  v["torch_version"] = "not built";
#endif
  return v;
}

std::string TorchBlasInfo() {
#ifdef SPARSEBENCH_HAVE_TORCH
  const std::string config = at::show_config();
  const size_t at = config.find("BLAS_INFO=");
  if (at == std::string::npos) return "unknown";
  const size_t begin = at + 10;
  return config.substr(begin, config.find_first_of(", \n", begin) - begin);
#else
  return "not built";
#endif
}

}  // namespace sparsebench
