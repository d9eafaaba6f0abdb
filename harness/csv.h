#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsebench {

// RFC 4180 fields: quoted when they hold a comma, quote or newline.
std::string CsvField(const std::string& value);
std::string CsvLine(const std::vector<std::string>& fields);
// The bytes of a regular file of at most max_bytes; DataError naming it when it is missing,
// not a regular file (a FIFO, a directory, a device), unreadable or larger ("not WHAT").
std::string ReadRegularFile(const std::string& path, uintmax_t max_bytes, const std::string& what);

// Rows of a CSV file, header included; DataError with file and line on a malformed file, and
// naming the file when it is missing, not a regular file or over 1 GiB.
std::vector<std::vector<std::string>> ReadCsv(const std::string& path);
// The same from text already read (`path` names it in errors).
std::vector<std::vector<std::string>> ParseCsv(const std::string& text, const std::string& path);

// Writes `text` to path through a temporary file beside it (synced) and a rename, so readers,
// a killed writer and a full disk never leave a half-written file: on failure the old file is
// intact, the temporary file removed, and DataError names the path.
void WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace sparsebench
