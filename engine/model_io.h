#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/network.h"

namespace sparsebench {

// What a model file holds: the engine's spec, free-form metadata (label names, featurizer
// settings) and the network's weights (not the optimizer state).
struct SavedModel {
  std::string spec;
  std::vector<std::pair<std::string, std::string>> metadata;  // ModelMetadata
  Network network;
};

using ModelMetadata = std::vector<std::pair<std::string, std::string>>;

// Binary layout: magic "SPBMODEL", format version, then length-prefixed sections, then an
// XXH64 checksum of everything before it. Streams the weights; DataError on I/O failure.
void SaveModel(const std::string& path, const std::string& spec, const ModelMetadata& metadata,
               const Network& network);
// Throws DataError naming the file for a missing, truncated, corrupt or foreign file.
SavedModel LoadModel(const std::string& path);

}  // namespace sparsebench
