#include "harness/history/git_commit.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include "datasets/data_error.h"
#include "harness/proc/subprocess.h"

namespace fs = std::filesystem;

namespace sparsebench {
namespace {

constexpr size_t kMaxGitOutput = 64 << 10;  // a commit's id, parents and date; an error line
constexpr size_t kMaxSubjectBytes = 1024;   // a subject line read at most (with its id)

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

// git's output for `args` in `repo`; DataError naming the repository with git's own words when
// it fails.
std::string RunGit(const std::string& repo, const std::vector<std::string>& args,
                   const std::string& what, size_t max_output) {
  const std::string git = FindExecutable("git");
  const std::string where = fmt::format("git repository {}", repo);
  if (git.empty()) throw DataError(where, 0, "git is not installed");
  std::vector<std::string> argv = {git, "-C", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  TempFiles files;
  const ProcessResult r = RunProcess(argv, files.out, files.err);
  if (!r.ok()) {
    std::string why = FileTail(files.err, kMaxGitOutput);
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    throw DataError(where, 0,
                    fmt::format("cannot read {}: {}", what, why.empty() ? r.Describe() : why));
  }
  return FileTail(files.out, max_output);
}

}  // namespace

CommitInfo GitCommit(const std::string& repo, const std::string& revision) {
  if (revision.empty() || revision.starts_with("-")) {
    throw DataError(fmt::format("git repository {}", repo), 0,
                    fmt::format("'{}' is not a revision", revision));
  }
  std::istringstream lines(
      RunGit(repo, {"log", "-1", "--format=%H%n%P%n%cI", revision + "^{commit}", "--"},
             fmt::format("commit '{}'", revision), kMaxGitOutput));
  CommitInfo info;
  std::string parents;
  std::getline(lines, info.commit);
  std::getline(lines, parents);
  std::getline(lines, info.date);
  info.parent = parents.substr(0, parents.find(' '));
  if (info.commit.size() < 40) {
    throw DataError(fmt::format("git repository {}", repo), 0, "git said nothing of " + revision);
  }
  return info;
}

std::map<std::string, std::string> CommitSubjects(const std::string& repo,
                                                  const std::vector<std::string>& commits) {
  std::map<std::string, std::string> subjects;
  std::vector<std::string> args = {"log", "--no-walk=unsorted", "--ignore-missing",
                                   "--format=%H%x09%s"};
  for (const std::string& c : commits) {
    if (!c.empty() && !c.starts_with("-")) args.push_back(c);
  }
  if (args.size() == 4) return subjects;
  args.push_back("--");
  std::istringstream lines(
      RunGit(repo, args, "the commits' subjects", kMaxSubjectBytes * (commits.size() + 1)));
  for (std::string line; std::getline(lines, line);) {
    const size_t tab = line.find('\t');
    if (tab == 40) subjects[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return subjects;
}

}  // namespace sparsebench
