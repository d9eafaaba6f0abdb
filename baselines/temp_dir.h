#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace sparsebench {

// What a directory's files hold: their MB, and whether they lie in memory (tmpfs, ramfs), where
// no process's resident size counts them.
struct StagedFiles {
  double mb = 0;
  bool in_memory = false;
};

// A fresh directory (mkdtemp) under `parent`, removed with its contents on destruction.
class TempDir {
 public:
  TempDir(const std::filesystem::path& parent, std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  StagedFiles Staged() const;  // its files now

 private:
  std::filesystem::path path_;
};

// The context keys of a learner that stages files for its engine (fastText's input, an
// external engine's rows): the files' MB, where they are, and the MB of them held in memory,
// which the cell's peak memory adds (harness/cli/train_command.cc).
inline constexpr const char* kStagedMbKey = "staged_mb";
inline constexpr const char* kStagedInKey = "staged_in";
inline constexpr const char* kStagedMemoryMbKey = "staged_memory_mb";
void AddStagedFacts(const TempDir& dir, std::map<std::string, std::string>& facts);
// The MB a context's staged_memory_mb states; 0 where it has none.
double StagedMemoryMb(const std::map<std::string, std::string>& facts);

}  // namespace sparsebench
