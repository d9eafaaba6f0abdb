#pragma once

#include <string>
#include <vector>

#include "harness/history/change_points.h"
#include "harness/history/store.h"

namespace sparsebench {

struct ShowOptions {
  std::string machine;     // "": every machine in the store
  std::string cell = "*";  // a glob over dataset/engine/tN
  size_t last = 40;        // points drawn in each sparkline
  ChangePointOptions change;
};

// Per machine, a table: each cell's series of median training seconds as a sparkline, its
// latest value, its change points (commit and ±%, annotated starts beside them) and the commits
// where its exact work counts changed.
std::string ShowText(const HistoryStore& store, const ShowOptions& options);

// Values as a line of block characters, lowest to highest ("" for none; a flat series at mid).
std::string Sparkline(const std::vector<double>& values);

}  // namespace sparsebench
