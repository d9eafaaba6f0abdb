#include "harness/history/git_commit.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "datasets/data_error.h"
#include "harness/proc/subprocess.h"

namespace fs = std::filesystem;

namespace sparsebench {
namespace {

constexpr size_t kMaxGitOutput = 64 << 10;  // a commit's id, parents and date; an error line

struct TempFiles {
  fs::path out, err;
  TempFiles() {
    const fs::path dir = fs::temp_directory_path();
    const std::string stem =
        fmt::format("sparsebench-git-{}-{}", ::getpid(), static_cast<const void*>(this));
    out = dir / (stem + ".out");
    err = dir / (stem + ".err");
  }
  ~TempFiles() {
    std::error_code ignored;
    fs::remove(out, ignored);
    fs::remove(err, ignored);
  }
};

}  // namespace

CommitInfo GitCommit(const std::string& repo, const std::string& revision) {
  const std::string git = FindExecutable("git");
  const std::string where = fmt::format("git repository {}", repo);
  if (git.empty()) throw DataError(where, 0, "git is not installed");
  if (revision.empty() || revision.starts_with("-"))
    throw DataError(where, 0, fmt::format("'{}' is not a revision", revision));
  TempFiles files;
  const ProcessResult r = RunProcess(
      {git, "-C", repo, "log", "-1", "--format=%H%n%P%n%cI", revision + "^{commit}", "--"},
      files.out, files.err);
  if (!r.ok()) {
    std::string why = FileTail(files.err, kMaxGitOutput);
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    throw DataError(
        where, 0,
        fmt::format("cannot read commit '{}': {}", revision, why.empty() ? r.Describe() : why));
  }
  std::istringstream lines(FileTail(files.out, kMaxGitOutput));
  CommitInfo info;
  std::string parents;
  std::getline(lines, info.commit);
  std::getline(lines, parents);
  std::getline(lines, info.date);
  info.parent = parents.substr(0, parents.find(' '));
  if (info.commit.size() < 40) throw DataError(where, 0, "git said nothing of " + revision);
  return info;
}

}  // namespace sparsebench
