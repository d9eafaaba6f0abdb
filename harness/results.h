#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/matrix.h"
#include "harness/prices.h"

namespace sparsebench {

// The columns of results.csv, in order (documented in harness/README.md).
const std::vector<std::string>& ResultColumns();

// Adds what the runner knows to a cell's row: its identity, the machine, the price and the
// costs derived from it (empty when the price is unknown).
void AddCellFields(nlohmann::json& row, const Cell& cell, const nlohmann::json& context,
                   const Pricing& pricing, double cell_seconds);

// A cell file that exists, parses and says "ok": what --resume skips.
bool IsFinishedCell(const std::string& path);

// The rows under DIR/cells/*.json of each run directory, in cell order.
std::vector<nlohmann::json> LoadRows(const std::vector<std::string>& run_dirs);

// OUT/results.csv and OUT/curves.csv from those rows, each written atomically.
void WriteResultFiles(const std::vector<std::string>& run_dirs, const std::string& out_dir);

// Rows read back from a results.csv (numbers as numbers, empty fields as null).
std::vector<nlohmann::json> ReadResultsCsv(const std::string& path);

}  // namespace sparsebench
