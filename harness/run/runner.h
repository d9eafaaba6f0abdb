#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/engine_family.h"
#include "harness/run/matrix.h"

namespace sparsebench {

struct RunOptions {
  std::string matrix_path;
  std::string out_dir;
  std::string data_dir;       // where presets are generated (cached)
  std::string binary;         // the sparsebench executable that runs each cell
  std::string instance;       // a row of the price table, or empty
  double price_per_hour = -1;  // < 0: from the instance, else unknown
  std::string prices_path;    // the instance price table (CSV)
  uint32_t repeats = 0;       // 0: the matrix's
  uint32_t shard = 0, shards = 1;
  bool resume = false;     // keep the cells of the same matrix that finished ok
  // With resume: the matrix --out was made with, when the matrix has changed since; a
  // finished cell is kept only when both matrices run it alike (CellRecipe).
  std::string previous_matrix_path;
  bool overwrite = false;  // remove the results --out holds (another matrix's, or an earlier run's)
  std::string published_path;  // harness/published.csv ("": the report has no published table)
  std::string history_page;    // results/history/index.html: linked where it exists
  bool plots = true;           // the report's plots (gnuplot)
};

// How a run ended: its cells that did not end "ok", and the cell files it read (those --resume
// found in --out, each once, before any cell ran; none after).
struct RunOutcome {
  int failed = 0;
  size_t cell_files_read = 0;
};

// Checks the matrix (its specs against `engines`) and options, then locks --out (RunDirLock)
// and decides what happens to results already there (PrepareOutDir), before anything is
// written. Runs the matrix's cells (this shard's), each in a child process under the matrix's
// time and memory limits, writing OUT/cells/<cell>.json as each ends and regenerating
// OUT/results.csv and OUT/curves.csv; a failed cell is a row with its status and reason. Then
// the report, from the results held in memory, still under the lock.
RunOutcome RunMatrix(const RunOptions& options, const EngineRegistry& engines);

// The data files a cell trains and tests on.
struct CellFiles {
  std::string train, test, format;
};

// The `sparsebench train` command line of a cell; settings the matrix leaves out are not passed.
std::vector<std::string> CellCommand(const Matrix& matrix, const Cell& cell, const CellFiles& files,
                                     const std::string& binary);

// What a cell runs, wherever its data lies: its command with the dataset as the matrix names
// it, its target and its limits. Two matrices run a cell alike when its recipes are equal.
std::string CellRecipe(const Matrix& matrix, const Cell& cell);

// The environment every cell's processes get beside the runner's own: glibc's malloc on
// transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1) unless `user_tunables` (the
// runner's GLIBC_TUNABLES, or null) is set, in which case that is what they get. An engine
// that allocates each step's tensors afresh (LibTorch, PyTorch) otherwise pays a page fault
// per 4 KiB of them, which on a VM can cost it 4× (docs/baselines-notes.md, 2026-12-07).
std::vector<std::string> CellEnvironment(const char* user_tunables);

}  // namespace sparsebench
