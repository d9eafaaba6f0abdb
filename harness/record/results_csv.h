#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_result.h"

namespace sparsebench {

// The two CSV formats of CellResults (harness/README.md, "results.csv" and "curves.csv").

// results.csv: a header of ResultColumns(), then a line per record.
std::string ResultsCsvText(const std::vector<CellResult>& rows);

// The records of a results.csv, from this version or an earlier one (columns it lacks stay
// empty; columns it does not know are ignored). DataError with the file and line when a column
// it needs (dataset, engine, threads, status) is missing or appears twice, a line has the
// wrong number of fields, or a field is not of its column's type.
std::vector<CellResult> ReadResultsCsv(const std::string& path);
std::vector<CellResult> ParseResultsCsv(const std::vector<std::vector<std::string>>& table,
                                        const std::string& path);

// curves.csv: a line per curve point of every record.
std::string CurvesCsvText(const std::vector<CellResult>& rows);

// Puts the points of a curves.csv on the records of the same cell_id and machine (the first
// such, replacing its curve); DataError with the file and line for a malformed line or a cell
// none of them is.
void ReadCurvesCsv(const std::string& path, std::vector<CellResult>& rows);

}  // namespace sparsebench
