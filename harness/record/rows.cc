#include "harness/record/rows.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "datasets/data_error.h"
#include "engine/api/engine_family.h"
#include "harness/record/cell_json.h"
#include "harness/record/files.h"
#include "harness/record/results_csv.h"
#include "harness/record/target_rule.h"

namespace sparsebench {
namespace fs = std::filesystem;

// The cell files of a run directory, by file name.
std::vector<fs::path> CellFilePaths(const std::string& dir) {
  const fs::path cells = fs::path(dir) / "cells";
  if (!fs::is_directory(cells)) throw DataError(dir, 0, "not a run directory (no cells/ inside)");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(cells)) {
    if (entry.path().extension() != ".json") continue;
    if (!entry.is_regular_file()) throw DataError(entry.path().string(), 0, "not a regular file");
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void SortByCellIndex(std::vector<CellResult>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const CellResult& a, const CellResult& b) {
    return a.cell_index.value_or(0) < b.cell_index.value_or(0);
  });
}

void ResolveTargets(std::vector<CellResult>& rows, const EngineRegistry& engines) {
  // dataset -> engine -> finals, and whether a budget stopped any of its repeats
  std::map<std::string, std::map<std::string, std::pair<std::vector<double>, bool>>> dense;
  for (const CellResult& r : rows) {
    if (r.ok() && engines.IsDenseBaseline(r.spec) && r.metric_value) {
      auto& [finals, stopped] = dense[r.dataset][r.name];
      finals.push_back(*r.metric_value);
      stopped |= r.stopped_by == StopReason::kBudget;
    }
  }
  // The best median final of the dense baselines that trained to their end (their epochs or
  // the plateau rule); only where every one was stopped by its budget, the best of those.
  std::map<std::string, double> best;
  for (auto& [dataset, groups] : dense) {
    double ended = NAN, stopped = NAN;
    for (auto& [engine, finals] : groups) {
      auto& values = finals.first;
      std::sort(values.begin(), values.end());
      const double median = values[values.size() / 2] / 2 + values[(values.size() - 1) / 2] / 2;
      double& b = finals.second ? stopped : ended;
      b = std::isnan(b) ? median : std::max(b, median);
    }
    best[dataset] = std::isnan(ended) ? stopped : ended;
  }
  for (CellResult& r : rows) {
    if (r.target_rule.empty()) continue;
    const auto at = best.find(r.dataset);
    SetTarget(r, TargetRule::Parse(r.target_rule).Resolve(at == best.end() ? NAN : at->second));
  }
}

std::vector<CellResult> LoadRows(const std::vector<std::string>& run_dirs,
                                 const EngineRegistry& engines) {
  std::vector<CellResult> rows;
  for (const std::string& dir : run_dirs) {
    std::vector<CellResult> mine;
    for (const fs::path& file : CellFilePaths(dir)) mine.push_back(ReadCellFile(file.string()));
    SortByCellIndex(mine);
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  ResolveTargets(rows, engines);
  return rows;
}

void WriteResultFiles(const std::vector<CellResult>& rows, const std::string& out_dir) {
  const std::string results = ResultsCsvText(rows), curves = CurvesCsvText(rows);
  fs::create_directories(out_dir);
  WriteFileAtomically((fs::path(out_dir) / "results.csv").string(), results);
  WriteFileAtomically((fs::path(out_dir) / "curves.csv").string(), curves);
}

}  // namespace sparsebench
