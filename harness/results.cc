#include "harness/results.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

#include "engine/api/engine_family.h"
#include "harness/cell_json.h"
#include "harness/context.h"
#include "harness/csv.h"
#include "harness/results_csv.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

// The cell files of a run directory, by file name.
std::vector<fs::path> CellFiles(const std::string& dir) {
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

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void AddCellFields(CellResult& r, const Cell& cell, const nlohmann::json& context,
                   const Pricing& pricing, double cell_seconds) {
  if (r.spec.empty()) r.spec = cell.engine->spec;
  r.name = cell.engine->name;
  r.cell_id = cell.id();
  r.cell_index = static_cast<int64_t>(cell.index);
  r.dataset = cell.dataset->name;
  r.threads = cell.threads;
  r.repeat = cell.repeat;
  r.machine = MachineName(context);
  // The hardware key decides "one machine"; what may differ between VMs of it rides along.
  for (const char* key : {"machine_fingerprint", "hardware_key", "kernel", "hypervisor",
                          "blas_backend", "blas_core"}) {
    const auto it = context.find(key);
    if (it != context.end() && it->is_string())
      r.context.emplace(std::string("run_") + key, it->get<std::string>());
  }
  r.git_commit = context.value("git_commit", std::string());
  r.instance = pricing.instance;
  r.price_per_hour =
      pricing.price_per_hour >= 0 ? std::optional<double>(pricing.price_per_hour) : std::nullopt;
  r.cell_seconds = cell_seconds;
  if (r.metric.empty()) r.metric = cell.dataset->metric;
  r.target_rule = cell.dataset->target;
  SetCosts(r);
}

void ResolveTargets(std::vector<CellResult>& rows, const EngineRegistry& engines) {
  // dataset -> engine -> finals, and whether a budget stopped any of its repeats
  std::map<std::string, std::map<std::string, std::pair<std::vector<double>, bool>>> dense;
  for (const CellResult& r : rows) {
    if (r.ok() && engines.IsDenseBaseline(r.spec) && r.metric_value) {
      auto& [finals, stopped] = dense[r.dataset][r.name];
      finals.push_back(*r.metric_value);
      stopped |= r.stopped_by == "budget";
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
    for (const fs::path& file : CellFiles(dir)) mine.push_back(ReadCellFile(file.string()));
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

RunResults::RunResults(std::string dir, const EngineRegistry& engines, Clock clock)
    : dir_(std::move(dir)),
      engines_(engines),
      clock_(clock ? std::move(clock) : Clock(SteadySeconds)) {
  for (const fs::path& file : CellFiles(dir_)) {
    Entry& entry = cells_[file.filename().string()];
    ++counts_.cell_files_read;
    try {
      entry.result = ReadCellFile(file.string());
    } catch (const DataError& e) {
      entry.error = e;  // the cell runs again and replaces it; otherwise WriteFiles reports it
    }
  }
  last_write_ = clock_();
}

bool RunResults::Finished(const std::string& stem) const {
  const auto it = cells_.find(stem + ".json");
  return it != cells_.end() && it->second.result && it->second.result->ok();
}

void RunResults::Add(const std::string& stem, const CellResult& r) {
  WriteCellFile(r, (fs::path(dir_) / "cells" / (stem + ".json")).string());
  cells_[stem + ".json"] = {r, std::nullopt};
  ++added_since_write_;
  if (cells_.size() <= kRowsPerCell * added_since_write_ || clock_() - last_write_ >= 60)
    WriteFiles();
}

void RunResults::WriteFiles() {
  std::vector<CellResult> rows;
  rows.reserve(cells_.size());
  for (const auto& [name, entry] : cells_) {
    if (entry.error) throw *entry.error;
    rows.push_back(*entry.result);
  }
  SortByCellIndex(rows);
  ResolveTargets(rows, engines_);
  WriteResultFiles(rows, dir_);
  ++counts_.writes;
  counts_.rows_written += rows.size();
  added_since_write_ = 0;
  last_write_ = clock_();
}

}  // namespace sparsebench
