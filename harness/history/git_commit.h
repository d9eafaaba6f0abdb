#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/history/history_record.h"

namespace sparsebench {

// The commit `revision` names in the git repository at `repo`: its full id, first parent and
// committer date. DataError naming the repository and revision when git cannot say.
CommitInfo GitCommit(const std::string& repo, const std::string& revision);

// The subject line of each of `commits` (full ids) that the repository holds; commits it does
// not know are left out. DataError when git cannot run there.
std::map<std::string, std::string> CommitSubjects(const std::string& repo,
                                                  const std::vector<std::string>& commits);

}  // namespace sparsebench
