#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/engine_family.h"
#include "harness/record/cell_result.h"

namespace sparsebench {

// The exact work counts of one repeat (summed over its epochs), at the seed it trained with:
// a deterministic engine repeats them exactly at that seed.
struct SeedCounts {
  uint64_t seed = 0;
  std::map<std::string, uint64_t> counts;
  bool operator==(const SeedCounts&) const = default;
};

// Where a commit sits: its parent and when it was made (from git).
struct CommitInfo {
  std::string commit, parent, date;  // date: ISO 8601 committer date
};

// One cell of one run at one commit on one machine: a line of results/history/<machine>.jsonl.
// Times are per repeat; `ratio` divides each repeat's training seconds by the reference
// engine's in the same run, dataset, threads and repeat (comparable across machines).
struct HistoryRecord {
  std::string commit, parent, commit_date, run_date;
  std::string machine;       // the store's file: hardware fingerprint, else the machine's name
  std::string machine_name;  // "CPU, N cores [fingerprint]"
  std::string build;         // build flags and ISA: exact counters compare only within one
  std::string matrix, matrix_hash;
  std::string cell;           // dataset/engine/tN
  std::string settings_hash;  // xxh64 of what the cell trained with: a change starts a series
  std::string spec;
  std::string status = "ok", reason;  // a cell that failed keeps its status and reason
  std::string reference;              // the engine `ratio` divides by ("" when none ran)
  std::vector<double> train_seconds, samples_per_second, ratio, metric_value;
  std::string metric;
  // Each ok repeat's exact work counts (active neurons, buckets probed, multiply-adds,
  // rebuilds, samples), for engines that report them.
  std::vector<SeedCounts> counters;

  bool ok() const { return status == "ok"; }
};

nlohmann::json ToJson(const HistoryRecord& r);
// Throws DataError naming `where` (file:line) for a line that is not a record.
HistoryRecord RecordFromJson(const nlohmann::json& j, const std::string& where);

// The store key of a run's machine: its hardware fingerprint, or a file-safe form of its name
// for a context recorded before fingerprints.
std::string MachineKey(const nlohmann::json& context);

// The records of a run directory at `commit`, one per cell (repeats gathered), in cell order.
// Throws DataError when the directory holds no cells or its context has no commit, or its
// commit was dirty and `allow_dirty` is false.
std::vector<HistoryRecord> RecordsOfRun(const std::string& run_dir, const CommitInfo& commit,
                                        const EngineRegistry& engines, bool allow_dirty);

// The commit a run directory was measured at (its context's git_commit).
std::string CommitOfRun(const std::string& run_dir);

}  // namespace sparsebench
