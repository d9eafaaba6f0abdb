#include "baselines/fasttext_staging.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>
#include <system_error>

namespace sparsebench {

namespace fs = std::filesystem;

fs::path FastTextStagingParent() {
  std::error_code error;
  const fs::path shm = "/dev/shm";
  if (fs::is_directory(shm, error) && access(shm.c_str(), W_OK) == 0) return shm;
  return fs::temp_directory_path();
}

void RemoveStaleFastTextStaging(const fs::path& parent) {
  std::error_code error;
  for (fs::directory_iterator it(parent, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kFastTextStagingPrefix)) continue;
    const std::string rest = name.substr(kFastTextStagingPrefix.size());
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    pid_t pid = 0;
    const auto [stop, parsed] = std::from_chars(rest.data(), rest.data() + dash, pid);
    if (parsed != std::errc() || stop != rest.data() + dash || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

}  // namespace sparsebench
