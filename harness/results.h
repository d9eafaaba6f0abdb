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

// cost_usd and cost_to_target_usd from the row's seconds and price_per_hour (null without a price).
void SetCosts(nlohmann::json& row);

// torch and blas: the dense baselines that speed-ups and relative targets are measured against.
bool IsDenseBaseline(const std::string& spec);

// Resolves each row's target rule against the best dense baseline of its dataset (median final
// metric over repeats) and recomputes its time to target from its curve, and the cost to it.
void ResolveTargets(std::vector<nlohmann::json>& rows);

// A cell file that exists, parses and says "ok": what --resume skips.
bool IsFinishedCell(const std::string& path);

// The rows under DIR/cells/*.json of each run directory, in cell order.
std::vector<nlohmann::json> LoadRows(const std::vector<std::string>& run_dirs);

// OUT/results.csv and OUT/curves.csv from those rows, each written atomically.
void WriteResultFiles(const std::vector<std::string>& run_dirs, const std::string& out_dir);

// Rows read back from a results.csv (numbers as numbers, empty fields as null).
std::vector<nlohmann::json> ReadResultsCsv(const std::string& path);

}  // namespace sparsebench
