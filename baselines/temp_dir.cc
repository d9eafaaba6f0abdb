#include "baselines/temp_dir.h"

#include <fmt/format.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

namespace sparsebench {

TempDir::TempDir(const std::filesystem::path& parent, std::string_view prefix) {
  std::string pattern = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary directory " + pattern + ": " +
                             std::strerror(errno));
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

StagedFiles TempDir::Staged() const {
  StagedFiles staged;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(path_, error), end; !error && it != end;
       it.increment(error)) {
    const uintmax_t bytes = it->is_regular_file(error) ? it->file_size(error) : 0;
    if (!error) staged.mb += static_cast<double>(bytes) / (1024.0 * 1024.0);
  }
  struct statfs fs {};
  if (statfs(path_.c_str(), &fs) == 0) {
    const auto type = static_cast<unsigned long>(fs.f_type);
    staged.in_memory = type == TMPFS_MAGIC || type == RAMFS_MAGIC;
  }
  return staged;
}

void AddStagedFacts(const TempDir& dir, std::map<std::string, std::string>& facts) {
  const StagedFiles staged = dir.Staged();
  facts[kStagedMbKey] = fmt::format("{:.1f}", staged.mb);
  facts[kStagedInKey] = dir.path().string();
  facts[kStagedMemoryMbKey] = fmt::format("{:.1f}", staged.in_memory ? staged.mb : 0.0);
}

double StagedMemoryMb(const std::map<std::string, std::string>& facts) {
  const auto it = facts.find(kStagedMemoryMbKey);
  return it == facts.end() ? 0.0 : std::stod(it->second);
}

}  // namespace sparsebench
