#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

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

struct ProcessResult {
  int exit_code = 0;  // meaningful when signal == 0
  int signal = 0;     // the signal that ended the process, 0 when it exited
  double seconds = 0;
  bool ok() const { return signal == 0 && exit_code == 0; }
  std::string Describe() const;  // "exit status 1" or "signal 6 (Aborted)"
};

// `name` itself when it contains a '/', else the first executable file of that name in PATH;
// empty when there is none.
std::string FindExecutable(const std::string& name);

// Runs argv[0] (a path; no shell) with stdin from /dev/null and stdout and stderr written to
// the given files, and waits for it. Throws std::runtime_error when it cannot be started.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::filesystem::path& stdout_file,
                         const std::filesystem::path& stderr_file);

// argv as a shell would need it typed, for messages.
std::string CommandLine(const std::vector<std::string>& argv);

// At most the last `max_bytes` of a file; empty when it cannot be read.
std::string FileTail(const std::filesystem::path& file, size_t max_bytes);

}  // namespace sparsebench
