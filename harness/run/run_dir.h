#pragma once

#include <string>

#include "harness/run/matrix.h"

namespace sparsebench {

// An exclusive, non-blocking lock on a run or report directory (flock on DIR/.sparsebench.lock,
// which records the holder's pid) for as long as the object lives. A second `sparsebench run`
// or `report` into the same directory fails at once with DataError naming the holder.
class RunDirLock {
 public:
  explicit RunDirLock(const std::string& dir);  // the directory must exist
  ~RunDirLock();
  RunDirLock(const RunDirLock&) = delete;
  RunDirLock& operator=(const RunDirLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

// What `sparsebench run` may do with an --out directory that already holds results.
struct OutDirPolicy {
  bool resume = false;     // keep finished cells of the same matrix
  bool overwrite = false;  // clear whatever results are there
  // With resume: the matrix the results were made with, when it has changed since (its
  // content hash must be the one the run recorded).
  const Matrix* previous = nullptr;
};

// Decides, under the lock, what happens to results already in `dir` before `matrix` runs
// into it: nothing there, or --resume of the same matrix (same content hash; a directory from
// before hashes were recorded counts when its context names the same matrix), or of a matrix
// edited since, given as `previous` (the run's recorded hash): kept. With
// --overwrite: the old cells, results, report and plots are removed. Otherwise DataError
// saying whose results they are and which flag to give.
void PrepareOutDir(const std::string& dir, const Matrix& matrix, const OutDirPolicy& policy);

}  // namespace sparsebench
