#include "harness/run/run_results.h"

#include <chrono>
#include <filesystem>

#include "harness/record/cell_json.h"
#include "harness/record/machine.h"
#include "harness/record/rows.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

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

RunResults::RunResults(std::string dir, const EngineRegistry& engines, Clock clock)
    : dir_(std::move(dir)),
      engines_(engines),
      clock_(clock ? std::move(clock) : Clock(SteadySeconds)) {
  for (const fs::path& file : CellFilePaths(dir_)) {
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
  cells_[stem + ".json"] = {
      WriteCellFile(r, (fs::path(dir_) / "cells" / (stem + ".json")).string()), std::nullopt};
  ++added_since_write_;
  if (cells_.size() <= kRowsPerCell * added_since_write_ || clock_() - last_write_ >= 60)
    WriteFiles();
}

std::vector<CellResult> RunResults::Rows() const {
  std::vector<CellResult> rows;
  rows.reserve(cells_.size());
  for (const auto& [name, entry] : cells_) {
    if (entry.error) throw *entry.error;
    rows.push_back(*entry.result);
  }
  SortByCellIndex(rows);
  ResolveTargets(rows, engines_);
  return rows;
}

void RunResults::WriteFiles() {
  const std::vector<CellResult> rows = Rows();
  WriteResultFiles(rows, dir_);
  ++counts_.writes;
  counts_.rows_written += rows.size();
  added_since_write_ = 0;
  last_write_ = clock_();
}

}  // namespace sparsebench
