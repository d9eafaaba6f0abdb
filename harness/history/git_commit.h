#pragma once

#include <string>

#include "harness/history/history_record.h"

namespace sparsebench {

// The commit `revision` names in the git repository at `repo`: its full id, first parent and
// committer date. DataError naming the repository and revision when git cannot say.
CommitInfo GitCommit(const std::string& repo, const std::string& revision);

}  // namespace sparsebench
