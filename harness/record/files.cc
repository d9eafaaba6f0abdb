#include "harness/record/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string_view>
#include <utility>

#include "datasets/data_error.h"

namespace sparsebench {

std::string ReadRegularFile(const std::string& path, uintmax_t max_bytes, const std::string& what) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) throw DataError(path, 0, "no such file");
  if (!std::filesystem::is_regular_file(status)) throw DataError(path, 0, "not a regular file");
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw DataError(path, 0, "cannot read the file: " + error.message());
  const auto too_large = [&] {
    return DataError(path, 0, fmt::format("larger than {} bytes: not {}", max_bytes, what));
  };
  if (size > max_bytes) throw too_large();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, 0, "cannot open the file");
  // One byte more than the size said: a file that grew since is caught too.
  std::string text(static_cast<size_t>(size) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw DataError(path, 0, "cannot read the file");
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > max_bytes) throw too_large();
  return text;
}

void EnsureDirectory(const std::string& dir) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(dir, error);
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_directory(status))
      throw DataError(dir, 0, "exists and is not a directory");
    return;
  }
  std::filesystem::create_directories(dir, error);
  if (error) throw DataError(dir, 0, "cannot create the directory: " + error.message());
}

namespace {

// A temporary file beside `path` (same directory, so the rename stays on one file system),
// removed when the object dies unless Commit renamed it onto `path`.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& path) : path_(path) {
    const std::filesystem::path p(path);
    const std::filesystem::path dir =
        p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
    std::random_device random;
    // O_EXCL: a name nobody else holds; mode 0666 under the umask, as any new file.
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      temp_ = (dir / fmt::format(".{}.tmp-{}-{:08x}", p.filename().string(), ::getpid(), random()))
                  .string();
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0) Fail("cannot create a temporary file beside it");
  }
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  void Write(std::string_view text) {
    while (!text.empty()) {
      const ssize_t done = ::write(fd_, text.data(), text.size());
      if (done < 0 && errno == EINTR) continue;
      if (done <= 0) Fail("cannot write");
      text.remove_prefix(static_cast<size_t>(done));
    }
  }
  // The data on disk, then the rename that replaces the old file in one step.
  void Commit() {
    if (::fsync(fd_) != 0) Fail("cannot write");
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) Fail("cannot write");
    if (::rename(temp_.c_str(), path_.c_str()) != 0)
      Fail("cannot rename the temporary file onto it");
    committed_ = true;
  }

 private:
  [[noreturn]] void Fail(const char* what) const {
    throw DataError(path_, 0, std::string(what) + ": " + std::strerror(errno));
  }

  std::string path_, temp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& text) {
  TemporaryFile file(path);
  file.Write(text);
  file.Commit();
}

}  // namespace sparsebench
