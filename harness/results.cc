#include "harness/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "datasets/data_error.h"
#include "harness/context.h"
#include "harness/csv.h"
#include "harness/measure.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

std::string Text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return v.dump();
}

nlohmann::json Parsed(const std::string& field) {
  if (field.empty()) return nullptr;
  char* end = nullptr;
  const double number = std::strtod(field.c_str(), &end);
  if (*end == '\0') return number;
  return field;
}

}  // namespace

const std::vector<std::string>& ResultColumns() {
  static const std::vector<std::string> columns = {
      "cell_id", "dataset", "engine", "spec", "optimizer", "threads", "repeat", "status", "reason", "machine",
      "instance", "price_per_hour", "load_seconds", "train_seconds", "time_to_target_seconds", "metric",
      "metric_value", "target", "target_rule", "p_at_1", "p_at_3", "p_at_5", "accuracy", "active_recall_at_5",
      "label_recall", "samples_per_second", "latency_p50_us", "latency_p99_us", "peak_rss_mb", "model_bytes",
      "epochs", "batch", "lr", "curve_eval_seconds", "eval_seconds", "cell_seconds", "cost_usd",
      "cost_to_target_usd", "git_commit"};
  return columns;
}

void AddCellFields(nlohmann::json& row, const Cell& cell, const nlohmann::json& context,
                   const Pricing& pricing, double cell_seconds) {
  row["spec"] = row.contains("engine") ? row["engine"] : nlohmann::json(cell.engine->spec);
  row["engine"] = cell.engine->name;
  row["cell_id"] = cell.id();
  row["cell_index"] = cell.index;
  row["dataset"] = cell.dataset->name;
  row["threads"] = cell.threads;
  row["repeat"] = cell.repeat;
  row["machine"] = MachineName(context);
  row["git_commit"] = context.value("git_commit", std::string());
  row["instance"] = pricing.instance;
  row["price_per_hour"] = pricing.price_per_hour >= 0 ? nlohmann::json(pricing.price_per_hour) : nlohmann::json(nullptr);
  row["cell_seconds"] = cell_seconds;
  if (!row.contains("metric")) row["metric"] = cell.dataset->metric;
  row["target_rule"] = cell.dataset->target;
  SetCosts(row);
}

void SetCosts(nlohmann::json& row) {
  const bool priced = row.value("status", "") == "ok" && row.contains("price_per_hour") && row["price_per_hour"].is_number();
  auto cost = [&](const char* seconds_key) -> nlohmann::json {
    if (!priced || !row.contains(seconds_key) || !row[seconds_key].is_number()) return nullptr;
    return row[seconds_key].get<double>() / 3600.0 * row["price_per_hour"].get<double>();
  };
  row["cost_usd"] = cost("train_seconds");
  row["cost_to_target_usd"] = cost("time_to_target_seconds");
}

bool IsDenseBaseline(const std::string& spec) {
  const std::string family = spec.substr(0, spec.find(':'));
  return family == "torch" || family == "blas";
}

void ResolveTargets(std::vector<nlohmann::json>& rows) {
  std::map<std::string, std::map<std::string, std::vector<double>>> dense;  // dataset -> engine -> finals
  for (const nlohmann::json& row : rows) {
    const auto value = row.find("metric_value");
    if (row.value("status", "") == "ok" && IsDenseBaseline(row.value("spec", "")) && value != row.end() &&
        value->is_number()) {
      dense[row.value("dataset", "")][row.value("engine", "")].push_back(value->get<double>());
    }
  }
  std::map<std::string, double> best;
  for (auto& [dataset, engines] : dense) {
    double b = NAN;
    for (auto& [engine, values] : engines) {
      std::sort(values.begin(), values.end());
      const double median = values[values.size() / 2] / 2 + values[(values.size() - 1) / 2] / 2;
      b = std::isnan(b) ? median : std::max(b, median);
    }
    best[dataset] = b;
  }
  for (nlohmann::json& row : rows) {
    const std::string rule = row.value("target_rule", "");
    if (rule.empty()) continue;
    const auto at = best.find(row.value("dataset", ""));
    const double target = TargetRule::Parse(rule).Resolve(at == best.end() ? NAN : at->second);
    row["target"] = std::isnan(target) ? nlohmann::json(nullptr) : nlohmann::json(target);
    row["time_to_target_seconds"] = TimeToTarget(row.value("curve", nlohmann::json::array()), target);
    SetCosts(row);
  }
}

bool IsFinishedCell(const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  const nlohmann::json row = nlohmann::json::parse(in, nullptr, false);
  return !row.is_discarded() && row.is_object() && row.value("status", "") == "ok";
}

std::vector<nlohmann::json> LoadRows(const std::vector<std::string>& run_dirs) {
  std::vector<nlohmann::json> rows;
  for (const std::string& dir : run_dirs) {
    const fs::path cells = fs::path(dir) / "cells";
    if (!fs::is_directory(cells)) throw DataError(dir, 0, "not a run directory (no cells/ inside)");
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(cells)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<nlohmann::json> mine;
    for (const fs::path& file : files) {
      std::ifstream in(file);
      nlohmann::json row = nlohmann::json::parse(in, nullptr, false);
      if (row.is_discarded() || !row.is_object()) throw DataError(file.string(), 1, "not a cell result (bad JSON)");
      mine.push_back(std::move(row));
    }
    std::stable_sort(mine.begin(), mine.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return a.value("cell_index", 0) < b.value("cell_index", 0);
    });
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  ResolveTargets(rows);
  return rows;
}

void WriteResultFiles(const std::vector<std::string>& run_dirs, const std::string& out_dir) {
  const std::vector<nlohmann::json> rows = LoadRows(run_dirs);
  std::string results = CsvLine(ResultColumns());
  std::string curves = CsvLine({"cell_id", "machine", "dataset", "engine", "threads", "repeat", "seconds", "epoch",
                                "metric", "value", "active_recall_at_5", "label_recall"});
  for (const nlohmann::json& row : rows) {
    std::vector<std::string> fields;
    for (const std::string& column : ResultColumns()) fields.push_back(Text(row.value(column, nlohmann::json())));
    results += CsvLine(fields);
    for (const auto& point : row.value("curve", nlohmann::json::array())) {
      auto at = [&](size_t i) { return point.is_array() && i < point.size() ? Text(point[i]) : std::string(); };
      curves += CsvLine({Text(row["cell_id"]), Text(row["machine"]), Text(row["dataset"]), Text(row["engine"]),
                         Text(row["threads"]), Text(row["repeat"]), at(0), at(1), Text(row["metric"]), at(2), at(3), at(4)});
    }
  }
  fs::create_directories(out_dir);
  WriteFileAtomically((fs::path(out_dir) / "results.csv").string(), results);
  WriteFileAtomically((fs::path(out_dir) / "curves.csv").string(), curves);
}

std::vector<nlohmann::json> ReadResultsCsv(const std::string& path) {
  const auto table = ReadCsv(path);
  if (table.empty()) throw DataError(path, 1, "empty results file");
  std::vector<nlohmann::json> rows;
  for (size_t r = 1; r < table.size(); ++r) {
    if (table[r].size() != table[0].size()) throw DataError(path, r + 1, "wrong number of fields");
    static const std::set<std::string> text = {"cell_id", "dataset", "engine", "spec", "optimizer", "status",
                                               "reason", "machine", "instance", "metric", "target_rule", "git_commit"};
    nlohmann::json row;
    for (size_t c = 0; c < table[0].size(); ++c) {
      const std::string& field = table[r][c];
      row[table[0][c]] = text.contains(table[0][c]) ? nlohmann::json(field) : Parsed(field);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace sparsebench
