#pragma once

#include <filesystem>
#include <string_view>

namespace sparsebench {

// A fresh directory (mkdtemp) under `parent`, removed with its contents on destruction.
class TempDir {
 public:
  TempDir(const std::filesystem::path& parent, std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace sparsebench
