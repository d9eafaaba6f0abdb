#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "harness/record/cell_result.h"

namespace sparsebench {

// The two JSON formats of a CellResult: the child's line (`sparsebench train` prints one on
// stdout) and the cell file (OUT/cells/<cell>.json, the child's line with what the runner
// adds). One object each: a key per column of Columns() that has a value, and "curve"
// ([[seconds, epoch, value, active_recall_at_5, label_recall], ...]), "epoch_details" and
// "context". Keys a reader does not know are ignored (files from later versions).

// The record as a JSON object.
nlohmann::json ToJson(const CellResult& r);

// The record in `object`; DataError(file, line, why) unless every known key has the type its
// column documents (text or number; whole numbers in range), the target rule parses and the
// curve is a list of points of at least three numbers (or nulls).
CellResult FromJson(const nlohmann::json& object, const std::string& file, uint64_t line);

// The child's line, on `out` and flushed. Invalid UTF-8 (paths, quoted errors) becomes U+FFFD.
void WriteChildLine(const CellResult& r, std::FILE* out);

// The last line of the file `stdout_path` that starts with '{': the child's result line;
// nothing when there is none or it is not a JSON object. DataError when it is an object that
// FromJson refuses.
std::optional<CellResult> ReadChildLine(const std::string& stdout_path);

// OUT/cells/<cell>.json, written atomically. Returns the record as the file holds it (what
// ReadCellFile gives back: text the JSON could not hold is replaced), without reading it.
CellResult WriteCellFile(const CellResult& r, const std::string& path);

// A cell file; DataError naming it when it is missing, too large or not a cell result.
CellResult ReadCellFile(const std::string& path);
CellResult ParseCellFile(const std::string& text, const std::string& path);

}  // namespace sparsebench
