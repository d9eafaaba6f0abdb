#pragma once

#include <map>
#include <string>

namespace sparsebench {

// Versions of the libraries the baselines run on: LibTorch (and its BLAS), fastText.
std::map<std::string, std::string> LibraryVersions();

}  // namespace sparsebench
