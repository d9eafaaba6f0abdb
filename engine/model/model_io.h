#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/network.h"

namespace sparsebench {

class InputFile;

// What a model file holds: the engine's spec, free-form metadata (label names, featurizer
// settings) and the network's weights (not the optimizer state).
struct SavedModel {
  std::string spec;
  std::vector<std::pair<std::string, std::string>> metadata;  // ModelMetadata
  Network network;
};

using ModelMetadata = std::vector<std::pair<std::string, std::string>>;

// Binary layout: magic "SPBMODEL", format version, then length-prefixed sections, then an
// XXH64 checksum of everything before it. Written to a temporary file beside `path` and
// renamed over it at the end, so a failure (a full disk) leaves any old model whole and no
// partial file. DataError naming the file when it cannot be written.
void SaveModel(const std::string& path, const std::string& spec, const ModelMetadata& metadata,
               const Network& network);
// DataError naming the file unless a model can be saved at `path`: its directory exists and
// is writable, and `path` is not a directory or other non-regular file. For checking a
// destination before hours of training, not instead of SaveModel's own errors.
void CheckModelDestination(const std::string& path);

// Throws DataError naming the file for a missing, truncated, corrupt or foreign file, and
// for one whose fields disagree (sizes against the file's length and against each other).
// Only regular files are read, and no larger than this machine's memory.
SavedModel LoadModel(const std::string& path);
// The same from an open file or bytes in memory (datasets/line_blocks.h).
SavedModel LoadModel(const InputFile& file);

}  // namespace sparsebench
