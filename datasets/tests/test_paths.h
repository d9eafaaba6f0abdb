#pragma once

#include <filesystem>
#include <stdlib.h>

#include <string>

namespace sparsebench::testing {

inline std::string DataFile(const std::string& name) { return std::string(SPARSEBENCH_TEST_DATA) + "/" + name; }

// A fresh directory under the system temp dir, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sparsebench-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace sparsebench::testing
