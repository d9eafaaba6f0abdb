#pragma once

#include <cstdint>
#include <string>

#include "datasets/synthetic.h"

namespace sparsebench {

SynthSummary WriteSyntheticYelp(double scale, uint64_t seed, int threads, const std::string& out_dir);
SynthSummary WriteSyntheticDbpedia(double scale, uint64_t seed, int threads,
                                   const std::string& out_dir);

}  // namespace sparsebench
