#pragma once

#include <cstdint>
#include <string>

namespace sparsebench {

// The bytes of a regular file of at most max_bytes; DataError naming it when it is missing,
// not a regular file (a FIFO, a directory, a device), unreadable or larger ("not WHAT").
std::string ReadRegularFile(const std::string& path, uintmax_t max_bytes, const std::string& what);

// Writes `text` to path through a temporary file beside it (synced) and a rename, so readers,
// a killed writer and a full disk never leave a half-written file: on failure the old file is
// intact, the temporary file removed, and DataError names the path.
void WriteFileAtomically(const std::string& path, const std::string& text);

// Creates `dir` (and its parents) unless it exists; DataError naming it when it exists and is
// not a directory, or cannot be created.
void EnsureDirectory(const std::string& dir);

}  // namespace sparsebench
