#pragma once

// Files for the targets that read from disk: a directory of this process's own, on tmpfs
// when there is one, removed when the process exits normally.
#include <filesystem>
#include <fstream>
#include <string_view>

#include "baselines/temp_dir.h"

namespace sparsebench::fuzz {

inline const std::filesystem::path& ScratchDir() {
  static const TempDir dir(std::filesystem::is_directory("/dev/shm")
                               ? std::filesystem::path("/dev/shm")
                               : std::filesystem::temp_directory_path(),
                           "sparsebench-fuzz-");
  return dir.path();
}

// Writes `bytes` to `path`, replacing what was there.
inline void WriteBytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace sparsebench::fuzz
