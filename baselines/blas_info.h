#pragma once

#include <map>
#include <string>

namespace sparsebench {

// Which OpenBLAS this process runs (build config, core kernel, threading model, threads).
std::map<std::string, std::string> BlasContext();

}  // namespace sparsebench
