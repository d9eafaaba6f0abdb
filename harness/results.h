#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/engines.h"
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

// Resolves each row's target rule against the best dense baseline (a family `engines` marks so)
// of its dataset (median final metric over repeats) and recomputes its time to target from its
// curve, and the cost to it.
void ResolveTargets(std::vector<nlohmann::json>& rows,
                    const EngineRegistry& engines = BuiltinEngines());

// DataError(file, line, reason) unless `row` is an object whose known fields have the types
// results.csv documents (text or number; threads, repeat and cell_index whole numbers), whose
// target_rule parses and whose curve is a list of points with at least three numbers (or nulls).
void CheckRow(const nlohmann::json& row, const std::string& file, uint64_t line);

// A cell file's text as a checked row (CheckRow); DataError naming `file` otherwise.
nlohmann::json ParseCellRow(const std::string& text, const std::string& file);

// A cell file that exists, parses and says "ok": what --resume skips.
bool IsFinishedCell(const std::string& path);

// The rows under DIR/cells/*.json of each run directory, in cell order, targets resolved.
std::vector<nlohmann::json> LoadRows(const std::vector<std::string>& run_dirs,
                                     const EngineRegistry& engines = BuiltinEngines());

// The text of results.csv and curves.csv for those rows.
std::string ResultsCsvText(const std::vector<nlohmann::json>& rows);
std::string CurvesCsvText(const std::vector<nlohmann::json>& rows);

// OUT/results.csv and OUT/curves.csv from those rows, each written atomically.
void WriteResultFiles(const std::vector<std::string>& run_dirs, const std::string& out_dir,
                      const EngineRegistry& engines = BuiltinEngines());

// Rows read back from a results.csv (numbers as numbers; an empty number field is left out, as
// the cell file it came from did not have it, so rows read back check as the cells did), each checked
// with CheckRow; DataError with the file and line otherwise, or when a column it needs is missing.
std::vector<nlohmann::json> ReadResultsCsv(const std::string& path);
std::vector<nlohmann::json> ParseResultsCsv(const std::vector<std::vector<std::string>>& table, const std::string& path);

}  // namespace sparsebench
