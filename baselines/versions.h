#pragma once

#include <map>
#include <string>

namespace sparsebench {

// Versions of the libraries the baselines run on: LibTorch (and its BLAS), fastText.
std::map<std::string, std::string> LibraryVersions();

// The BLAS LibTorch was built against (its BLAS_INFO), or "not built".
std::string TorchBlasInfo();

}  // namespace sparsebench
