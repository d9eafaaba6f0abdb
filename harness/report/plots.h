#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/report/summary.h"

namespace sparsebench {

// A file name's part from any text: letters and digits kept, the rest '_'.
std::string Slug(const std::string& text);

// Curves (first repeat of each group) and cost bars through gnuplot, into files named
// STEM-curves.png and STEM-cost.png under `plots`; "" when it ran, else why there are none.
std::string Plot(const std::string& stem, const std::string& dataset,
                 const std::vector<Group>& groups, const std::filesystem::path& plots);

}  // namespace sparsebench
