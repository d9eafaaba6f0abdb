#include "harness/run/run_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "datasets/data_error.h"
#include "engine/api/engine_error.h"
#include "harness/record/csv.h"
#include "harness/record/files.h"

namespace sparsebench {
namespace fs = std::filesystem;

RunDirLock::RunDirLock(const std::string& dir)
    : path_((fs::path(dir) / ".sparsebench.lock").string()) {
  // The holder removes the file when it ends; a lock taken on a file removed meanwhile is
  // worthless, so the inode locked must still be the one at the path.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw DataError(dir, 0, std::string("cannot create the lock file: ") + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      char holder[64] = {};
      const ssize_t got = ::pread(fd, holder, sizeof holder - 1, 0);
      ::close(fd);
      std::string who = got > 0 ? std::string(holder, static_cast<size_t>(got))
                                : std::string("pid not yet recorded");
      while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
      if (error == EWOULDBLOCK) {
        throw DataError(dir, 0,
                        "in use by another sparsebench run or report (" + who +
                            "): two runs in one directory would mix their rows and skew each "
                            "other's timings; wait for it to end or choose another directory");
      }
      throw DataError(dir, 0, std::string("cannot lock: ") + std::strerror(error));
    }
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      fd_ = fd;
      const std::string pid = fmt::format("pid {}\n", ::getpid());
      if (::ftruncate(fd, 0) != 0 ||
          ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
        // The lock holds without the note; a second run's message then lacks the pid.
      }
      return;
    }
    ::close(fd);
  }
  throw DataError(dir, 0, "cannot lock: the lock file keeps changing");
}

RunDirLock::~RunDirLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still locked: a waiter then sees a new inode and retries
  ::close(fd_);
}

namespace {

bool HasCellFiles(const fs::path& cells) {
  std::error_code error;
  for (fs::directory_iterator it(cells, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".json") return true;
  }
  return false;
}

// The matrix a run directory's context.json names (empty strings when it names none, or the
// file is missing, odd or not a run's).
void RecordedMatrix(const fs::path& file, std::string& name, std::string& hash, std::string& path) {
  nlohmann::json context;
  try {
    context = nlohmann::json::parse(ReadRegularFile(file.string(), 16u << 20, "a context"), nullptr,
                                    false);
  } catch (const DataError&) {
    return;
  }
  if (context.is_array() && !context.empty())
    context = context.back();  // resumed on other hardware
  if (!context.is_object()) return;
  auto text = [&](const char* key) {
    const auto it = context.find(key);
    return it != context.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  name = text("matrix");
  hash = text("matrix_hash");
  path = text("matrix_path");
}

}  // namespace

namespace {

constexpr const char* kOutputs[] = {"results.csv", "curves.csv", "report.md", "context.json"};

bool HoldsResults(const fs::path& out) {
  bool holds = HasCellFiles(out / "cells");
  for (const char* file : kOutputs) holds |= fs::exists(fs::symlink_status(out / file));
  return holds;
}

void RemoveResults(const fs::path& out) {
  fmt::print(stderr, "--overwrite: removing the results already in {}\n", out.string());
  std::error_code error;
  auto check = [&](const fs::path& what) {
    if (error)
      throw DataError(what.string(), 0, "cannot remove the old results: " + error.message());
  };
  for (const char* file : kOutputs) {
    fs::remove(out / file, error);
    check(out / file);
  }
  for (const char* dir : {"cells", "plots"}) {
    fs::remove_all(out / dir, error);
    check(out / dir);
  }
}

// Whose results `out` holds, as the refusal says it.
std::string Whose(const fs::path& out, const Matrix& matrix, bool& same) {
  std::string name, hash, path;
  RecordedMatrix(out / "context.json", name, hash, path);
  same = hash.empty() ? !name.empty() && name == matrix.name : hash == matrix.content_hash;
  if (same)
    return fmt::format("a run of this matrix ('{}'{})", matrix.name,
                       hash.empty() ? ", recorded by name only" : "");
  if (name.empty()) return "results of an unknown matrix (no run's context.json names one)";
  return fmt::format("the results of matrix '{}' ({}{}), not of {}", name,
                     path.empty() ? "file not recorded" : path, hash.empty() ? "" : ", " + hash,
                     matrix.path);
}

}  // namespace

void PrepareOutDir(const std::string& dir, const Matrix& matrix, const OutDirPolicy& policy) {
  if (policy.resume && policy.overwrite) {
    throw ConfigError(
        "--resume keeps the finished cells in --out and --overwrite removes them: give one of the "
        "two");
  }
  const fs::path out(dir);
  if (!HoldsResults(out)) return;
  if (policy.overwrite) return RemoveResults(out);
  bool same = false;
  const std::string whose = Whose(out, matrix, same);
  if (policy.resume && same) return;
  if (policy.resume && policy.previous != nullptr) {
    std::string name, hash, path;
    RecordedMatrix(out / "context.json", name, hash, path);
    if (!hash.empty() && hash == policy.previous->content_hash) return;
    throw DataError(policy.previous->path, 0,
                    fmt::format("--previous-matrix is {}, but {} holds {}",
                                policy.previous->content_hash, dir, whose));
  }
  if (policy.resume) {
    throw DataError(
        dir, 0,
        "holds " + whose +
            ": --resume continues only the same matrix (or, with --previous-matrix, the "
            "matrix it was made with); choose another --out, or give --overwrite "
            "instead of --resume to remove them");
  }
  throw DataError(dir, 0,
                  "holds " + whose + ": give " +
                      (same ? "--resume to finish it, " : std::string()) +
                      "--overwrite to remove them and start afresh, or choose another --out");
}

}  // namespace sparsebench
