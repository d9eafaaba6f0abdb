#pragma once

#include <string>
#include <vector>

#include "harness/history/history_record.h"

namespace sparsebench {

// An intended change: from `commit` (a prefix of at least 7 hex digits) on, the cells matching
// `cell` (a glob over dataset/engine/tN) start a new segment.
struct Annotation {
  std::string commit, cell, reason, date;
  bool Matches(const std::string& commit_id, const std::string& cell_id) const;
};

// results/history/: one append-only JSON-lines file per machine (<machine>.jsonl) and
// annotations.jsonl. A missing directory is an empty store.
class HistoryStore {
 public:
  explicit HistoryStore(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  std::vector<std::string> Machines() const;  // the machines with a file, sorted
  // A machine's records in file order (none when it has no file); DataError naming the file
  // and line of one that is not a record.
  std::vector<HistoryRecord> Records(const std::string& machine) const;
  std::vector<Annotation> Annotations() const;

  // Appends each record as one line of its machine's file; the records must share a machine.
  void Append(const std::vector<HistoryRecord>& records) const;
  void Append(const Annotation& annotation) const;

 private:
  std::string dir_;
};

}  // namespace sparsebench
