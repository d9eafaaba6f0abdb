#pragma once

#include <string>
#include <vector>

#include "engine/api/engine_family.h"

namespace sparsebench {

struct ReportOptions {
  std::vector<std::string> run_dirs;  // one or more `sparsebench run` outputs (any machines)
  std::string out_dir;
  std::string prices_path;     // harness/instances.csv
  std::string published_path;  // harness/published.csv
  bool plots = true;           // run gnuplot (false: the report says there are none)
};

// OUT/results.csv, curves.csv, context.json (every run's), report.md and plots/ (gnuplot,
// when installed): per dataset, engines with time, metric, cost and speed-up against the
// fastest dense baseline at equal target; the article's figures in a table of their own.
void WriteReport(const ReportOptions& options, const EngineRegistry& engines);

}  // namespace sparsebench
