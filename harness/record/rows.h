#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/record/cell_result.h"

namespace sparsebench {

class EngineRegistry;  // engine/api/engine_family.h

// The cell files (cells/*.json) of a run directory, sorted by name; DataError naming the
// directory when it has no cells/ or an entry that is not a regular file.
std::vector<std::filesystem::path> CellFilePaths(const std::string& run_dir);

// Rows in the order of their cells in the matrix (stable).
void SortByCellIndex(std::vector<CellResult>& rows);

// Resolves each row's target rule against the best dense baseline (a family `engines` marks so)
// of its dataset (median final metric over repeats) and sets its time to target and costs.
void ResolveTargets(std::vector<CellResult>& rows, const EngineRegistry& engines);

// The cell files under DIR/cells/*.json of each run directory, read once, in cell order,
// targets resolved; DataError naming a file that is not a cell result.
std::vector<CellResult> LoadRows(const std::vector<std::string>& run_dirs,
                                 const EngineRegistry& engines);

// OUT/results.csv and OUT/curves.csv of those rows, each written atomically.
void WriteResultFiles(const std::vector<CellResult>& rows, const std::string& out_dir);

}  // namespace sparsebench
