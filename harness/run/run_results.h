#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "datasets/data_error.h"
#include "harness/record/cell_result.h"
#include "harness/record/prices.h"
#include "harness/run/matrix.h"

namespace sparsebench {

class EngineRegistry;  // engine/api/engine_family.h

// Adds what the runner knows to a cell's result: its identity, the machine, the price and the
// costs derived from it (none when the price is unknown).
void AddCellFields(CellResult& r, const Cell& cell, const nlohmann::json& context,
                   const Pricing& pricing, double cell_seconds);

// The results of the run directory a `sparsebench run` writes into, kept in memory: its cell
// files are read once, when it starts (those --resume keeps), and each cell that ends is
// written to its file and kept, so results.csv and curves.csv are regenerated without reading
// any cell file again.
class RunResults {
 public:
  using Clock = std::function<double()>;  // seconds, for when the files are due
  explicit RunResults(std::string dir, const EngineRegistry& engines, Clock clock = {});

  // DIR/cells/<stem>.json exists, is a cell result and says "ok": what --resume skips.
  bool Finished(const std::string& stem) const;

  // Writes DIR/cells/<stem>.json and keeps the result; then the result files when due.
  void Add(const std::string& stem, const CellResult& r);

  // Every result, in cell order, targets resolved: what the report is written from. DataError
  // naming a cell file in DIR that was not a cell result and no cell replaced.
  std::vector<CellResult> Rows() const;

  // DIR/results.csv and DIR/curves.csv now. Until then, they are rewritten after a cell only
  // when that costs little beside the cells: when they have no more than kRowsPerCell rows
  // per cell added since their last writing, or a minute has passed since it. DataError
  // naming a cell file in DIR that was not a cell result and no cell replaced.
  void WriteFiles();

  static constexpr size_t kRowsPerCell = 100;

  struct Counts {
    size_t cell_files_read = 0, writes = 0, rows_written = 0;
  };
  const Counts& counts() const { return counts_; }

 private:
  struct Entry {
    std::optional<CellResult> result;
    std::optional<DataError> error;  // the file was there but not a cell result
  };
  std::string dir_;
  const EngineRegistry& engines_;
  Clock clock_;
  std::map<std::string, Entry> cells_;  // by file name, as the directory lists them
  size_t added_since_write_ = 0;
  double last_write_ = 0;
  Counts counts_;
};

}  // namespace sparsebench
