#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/api/engine_family.h"
#include "harness/record/cell_result.h"

namespace sparsebench {

struct ReportOptions {
  std::vector<std::string> run_dirs;  // one or more `sparsebench run` outputs (any machines)
  std::string out_dir;
  std::string prices_path;     // harness/instances.csv
  std::string published_path;  // harness/published.csv ("": no table of published figures)
  bool plots = true;           // run gnuplot (false: the report says there are none)
  std::string history_page;    // the history page (history report --html): linked where it exists
};

// What a report is made of: every run's rows, targets resolved, in cell order, and the
// contexts of the runs (their machines).
struct ReportInput {
  std::vector<CellResult> rows;
  std::vector<nlohmann::json> contexts;
};

// The cell files and context.json of each run directory; DataError naming a file that is not a
// cell result.
ReportInput ReadRunDirs(const std::vector<std::string>& run_dirs, const EngineRegistry& engines);

// OUT/results.csv, curves.csv, context.json (every run's, unless OUT is the one run directory),
// report.md and plots/ (gnuplot, when installed): per dataset, engines with time, metric, cost
// and speed-up against the fastest dense baseline at equal target; the article's figures in a
// table of their own. The one entry point of a run's report: `sparsebench run` gives the rows
// it holds, and no cell file is read again.
void WriteReport(const ReportInput& input, const ReportOptions& options,
                 const EngineRegistry& engines);

// `sparsebench report`: ReadRunDirs(options.run_dirs), then the report of what they hold.
void WriteReport(const ReportOptions& options, const EngineRegistry& engines);

}  // namespace sparsebench
