#pragma once

#include <string>
#include <vector>

namespace sparsebench {

// RFC 4180 fields: quoted when they hold a comma, quote or newline.
std::string CsvField(const std::string& value);
std::string CsvLine(const std::vector<std::string>& fields);
// Rows of a CSV file, header included; DataError with file and line on a malformed file, and
// naming the file when it is missing, not a regular file or over 1 GiB.
std::vector<std::vector<std::string>> ReadCsv(const std::string& path);
// The same from text already read (`path` names it in errors).
std::vector<std::vector<std::string>> ParseCsv(const std::string& text, const std::string& path);

}  // namespace sparsebench
