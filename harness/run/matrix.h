#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/engine_family.h"

namespace sparsebench {

// One engine as a matrix runs it on one dataset: a spec string and its training options.
// Settings left at 0 are not given: the engine's own default runs (and results.csv says which).
struct MatrixEngine {
  std::string name;  // short label in reports (default: the spec's family)
  std::string spec;
  uint32_t epochs = 0;
  uint32_t batch = 0;
  double lr = 0;
  std::optional<uint32_t> lr_half_life;  // samples; 0: constant lr
  std::optional<double> train_budget_seconds, eval_every_seconds;  // unset: the matrix's
  std::optional<uint32_t> repeats;  // unset: the matrix's (`run --repeats` sets every engine's)
};

// A dataset: a synthetic preset at a scale (generated once, cached) or files on disk.
struct MatrixDataset {
  std::string name;
  std::string preset;  // empty when train/test are given
  double scale = 0;
  std::string train, test, format;
  std::string metric = "p_at_1";  // p_at_1, p_at_3, p_at_5 or accuracy
  // The time-to-target threshold on `metric`: a number, or a rule written "dense-Npt" that
  // resolves to the best dense baseline's final metric in the same run minus N points.
  std::string target = "";
  // The plateau rule for every engine of the dataset (MeasureSettings): 0 and 0 for none.
  double holdout = 0;
  uint32_t patience = 0;
  double min_improvement = 0;  // what counts as a new best (metric units; default 0: any gain)
  std::vector<MatrixEngine> engines;
};

struct Matrix {
  std::string name;
  std::string path;
  std::string content_hash;  // "xxh64:<16 hex digits>" of the file's bytes: which matrix made a run directory
  std::vector<MatrixDataset> datasets;
  std::vector<int> threads{2};
  uint32_t repeats = 1;
  double max_seconds = 600;      // wall-time limit of one cell
  double max_memory_mb = 16384;  // address-space limit of one cell
  uint32_t evals_per_epoch = 4;  // points on the time-to-accuracy curve
  uint32_t eval_sample = 2000;   // test rows in each curve point
  uint32_t latency_samples = 1000;
  // Training stops at the first pause at or after this many training seconds (0: none); an
  // engine's own value wins. Must be below max_seconds.
  double train_budget_seconds = 0;
  // A curve point only after this many training seconds since the last (0: at every pause).
  double eval_every_seconds = 0;
};

// Bounds a matrix is checked against when it is read (beyond them, or outside what `sparsebench
// train` accepts, the matrix is refused with FILE:LINE before anything runs).
inline constexpr uint32_t kMaxRepeats = 1000;
inline constexpr uint32_t kMaxEpochs = 10000;      // as `train --epochs`
inline constexpr uint32_t kMaxBatch = 1u << 20;    // as `train --batch`
inline constexpr uint32_t kMaxLrHalfLife = 4'000'000'000u;  // as `train --lr-half-life`
inline constexpr double kMinLr = 1e-7, kMaxLr = 10;  // as `train --lr`
inline constexpr uint32_t kMaxEvalsPerEpoch = 1000;
inline constexpr int kMaxThreads = 1024;           // as `train --threads`
inline constexpr uint32_t kMaxBuckets = 1u << 30;  // as `train --buckets`
inline constexpr double kMaxScale = 100;  // a preset's scale, as `data gen --scale` (above 0)
inline constexpr uint32_t kMaxSynthLabels = 100'000'000;  // `data gen --labels`
inline constexpr uint64_t kMaxCells = 100000;      // datasets x engines x threads x repeats
inline constexpr size_t kMaxMatrixBytes = 1 << 20;
inline constexpr double kMaxSeconds = 1e7;  // max_seconds, budgets and curve spacing

// Reads a matrix TOML file; DataError with the file, line and reason when it is not valid:
// unknown keys, wrong types, values out of range, unknown presets, formats or engine specs,
// duplicate names (cell ids must be unique), and, with check_files, train/test files that
// are missing or not regular files (relative paths are relative to the current directory).
// Specs are checked against `engines`.
Matrix ReadMatrix(const std::string& path, const EngineRegistry& engines,
                  bool check_files = true);

// An engine's repeats in a matrix: its own, else the matrix's.
uint32_t Repeats(const Matrix& matrix, const MatrixEngine& engine);

// The number of cells a matrix expands to with `repeats` repeats for engines that set none
// (no allocation).
uint64_t CountCells(const Matrix& matrix, uint32_t repeats);

// One run of one engine on one dataset with a thread count: the unit the harness executes.
struct Cell {
  size_t index = 0;  // position in the whole matrix
  const MatrixDataset* dataset = nullptr;
  const MatrixEngine* engine = nullptr;
  int threads = 0;
  uint32_t repeat = 0;
  // "dataset/engine/t<threads>/r<repeat>": stable across runs, shards and machines.
  std::string id() const;
};

std::vector<Cell> ExpandCells(const Matrix& matrix);
// File name of a cell's files under OUT/cells ("/" becomes "__"); ReadMatrix makes sure that
// no two cells of a matrix share one.
std::string CellFileStem(const std::string& cell_id);
// Cells whose index % count == shard (0-based), for job arrays.
std::vector<Cell> ShardCells(const std::vector<Cell>& cells, uint32_t shard, uint32_t count);

}  // namespace sparsebench
