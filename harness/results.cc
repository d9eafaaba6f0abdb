#include "harness/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "datasets/data_error.h"
#include "engine/api/engine_family.h"
#include "harness/context.h"
#include "harness/csv.h"
#include "harness/measure.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

// Measurements keep 6 significant digits; settings a user typed (`exact`) keep every digit.
std::string Text(const nlohmann::json& v, bool exact = false) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float())
    return exact ? fmt::format("{}", v.get<double>()) : fmt::format("{:.6g}", v.get<double>());
  return v.dump();
}

bool IsSetting(const std::string& column) { return column == "lr" || column == "price_per_hour"; }

nlohmann::json Parsed(const std::string& field) {
  char* end = nullptr;
  const double number = std::strtod(field.c_str(), &end);
  if (*end == '\0') return number;
  return field;
}

// Columns holding text; every other column of ResultColumns() holds a number (or nothing).
const std::set<std::string>& TextColumns() {
  static const std::set<std::string> text = {
      "cell_id", "dataset",  "engine", "spec",        "optimizer",  "status",    "reason",
      "machine", "instance", "metric", "target_rule", "git_commit", "stopped_by"};
  return text;
}

// Integers the readers use as such (thread counts, repeats, cell order).
bool IsSmallInteger(const nlohmann::json& v, double max) {
  if (v.is_number_integer()) return v.is_number_unsigned() ? v.get<uint64_t>() <= max : v.get<int64_t>() >= 0 && v.get<int64_t>() <= max;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return d >= 0 && d <= max && d == std::floor(d);
}

constexpr size_t kMaxCellFileBytes = 64u << 20;

}  // namespace

void CheckRow(const nlohmann::json& row, const std::string& file, uint64_t line) {
  auto fail = [&](const std::string& reason) { throw DataError(file, line, "not a cell result: " + reason); };
  if (!row.is_object()) fail("not a JSON object");
  // Text is text (readers take it with row.value(key, "")); numbers are numbers or null.
  for (const std::string& column : ResultColumns()) {
    const auto it = row.find(column);
    if (it == row.end()) continue;
    if (TextColumns().contains(column)) {
      if (!it->is_string()) fail("'" + column + "' must be a string");
    } else if (!it->is_number() && !it->is_null()) {
      fail("'" + column + "' must be a number");
    }
  }
  for (const char* key : {"threads", "repeat", "cell_index"}) {
    const bool index = key == std::string("cell_index");
    const auto it = row.find(key);
    if (it != row.end() && !IsSmallInteger(*it, index ? 1e15 : 1e6)) {
      fail(std::string("'") + key + "' must be a whole number from 0 to " + (index ? "1e15" : "1e6"));
    }
  }
  if (const auto rule = row.find("target_rule"); rule != row.end() && rule->is_string()) {
    try {
      TargetRule::Parse(rule->get<std::string>());
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  }
  if (const auto curve = row.find("curve"); curve != row.end() && !curve->is_null()) {
    if (!curve->is_array()) fail("'curve' must be a list of points");
    for (const auto& point : *curve) {
      // [seconds, epoch, value, active_recall, label_recall]: the first three always there.
      if (!point.is_array() || point.size() < 3) fail("a curve point must be a list [seconds, epoch, value, ...]");
      for (const auto& v : point) {
        if (!v.is_number() && !v.is_null()) fail("a curve point holds something other than numbers");
      }
    }
  }
}

const std::vector<std::string>& ResultColumns() {
  static const std::vector<std::string> columns = {"cell_id",
                                                   "dataset",
                                                   "engine",
                                                   "spec",
                                                   "optimizer",
                                                   "threads",
                                                   "repeat",
                                                   "status",
                                                   "reason",
                                                   "machine",
                                                   "instance",
                                                   "price_per_hour",
                                                   "load_seconds",
                                                   "train_seconds",
                                                   "time_to_target_seconds",
                                                   "metric",
                                                   "metric_value",
                                                   "target",
                                                   "target_rule",
                                                   "p_at_1",
                                                   "p_at_3",
                                                   "p_at_5",
                                                   "accuracy",
                                                   "active_recall_at_5",
                                                   "label_recall",
                                                   "samples_per_second",
                                                   "latency_p50_us",
                                                   "latency_p99_us",
                                                   "peak_rss_mb",
                                                   "model_bytes",
                                                   "epochs",
                                                   "epochs_trained",
                                                   "train_budget_seconds",
                                                   "stopped_by",
                                                   "batch",
                                                   "lr",
                                                   "curve_eval_seconds",
                                                   "eval_seconds",
                                                   "cell_seconds",
                                                   "cost_usd",
                                                   "cost_to_target_usd",
                                                   "git_commit"};
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

void ResolveTargets(std::vector<nlohmann::json>& rows, const EngineRegistry& engines) {
  std::map<std::string, std::map<std::string, std::vector<double>>> dense;  // dataset -> engine -> finals
  for (const nlohmann::json& row : rows) {
    const auto value = row.find("metric_value");
    if (row.value("status", "") == "ok" && engines.IsDenseBaseline(row.value("spec", "")) &&
        value != row.end() && value->is_number()) {
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

nlohmann::json ParseCellRow(const std::string& text, const std::string& file) {
  nlohmann::json row = nlohmann::json::parse(text, nullptr, false);
  if (row.is_discarded()) throw DataError(file, 1, "not a cell result (bad JSON)");
  CheckRow(row, file, 1);
  return row;
}

bool IsFinishedCell(const std::string& path) {
  try {
    const nlohmann::json row = ParseCellRow(ReadRegularFile(path, kMaxCellFileBytes, "a cell result"), path);
    return row.value("status", "") == "ok";
  } catch (const DataError&) {
    return false;  // missing, odd or malformed: the cell runs again and its file is replaced
  }
}

std::vector<nlohmann::json> LoadRows(const std::vector<std::string>& run_dirs,
                                     const EngineRegistry& engines) {
  std::vector<nlohmann::json> rows;
  for (const std::string& dir : run_dirs) {
    const fs::path cells = fs::path(dir) / "cells";
    if (!fs::is_directory(cells)) throw DataError(dir, 0, "not a run directory (no cells/ inside)");
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(cells)) {
      if (entry.path().extension() != ".json") continue;
      if (!entry.is_regular_file()) throw DataError(entry.path().string(), 0, "not a regular file");
      files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<nlohmann::json> mine;
    for (const fs::path& file : files) {
      mine.push_back(ParseCellRow(ReadRegularFile(file.string(), kMaxCellFileBytes, "a cell result"), file.string()));
    }
    std::stable_sort(mine.begin(), mine.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return a.value("cell_index", int64_t{0}) < b.value("cell_index", int64_t{0});
    });
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  ResolveTargets(rows, engines);
  return rows;
}

std::string ResultsCsvText(const std::vector<nlohmann::json>& rows) {
  std::string results = CsvLine(ResultColumns());
  for (const nlohmann::json& row : rows) {
    std::vector<std::string> fields;
    for (const std::string& column : ResultColumns())
      fields.push_back(Text(row.value(column, nlohmann::json()), IsSetting(column)));
    results += CsvLine(fields);
  }
  return results;
}

std::string CurvesCsvText(const std::vector<nlohmann::json>& rows) {
  std::string curves = CsvLine({"cell_id", "machine", "dataset", "engine", "threads", "repeat", "seconds", "epoch",
                                "metric", "value", "active_recall_at_5", "label_recall"});
  for (const nlohmann::json& row : rows) {
    auto field = [&](const char* key) { return Text(row.value(key, nlohmann::json())); };
    const auto curve = row.find("curve");
    if (curve == row.end() || !curve->is_array()) continue;
    for (const auto& point : *curve) {
      auto at = [&](size_t i) { return point.is_array() && i < point.size() ? Text(point[i]) : std::string(); };
      curves += CsvLine({field("cell_id"), field("machine"), field("dataset"), field("engine"), field("threads"),
                         field("repeat"), at(0), at(1), field("metric"), at(2), at(3), at(4)});
    }
  }
  return curves;
}

void WriteResultFiles(const std::vector<std::string>& run_dirs, const std::string& out_dir,
                      const EngineRegistry& engines) {
  const std::vector<nlohmann::json> rows = LoadRows(run_dirs, engines);
  const std::string results = ResultsCsvText(rows), curves = CurvesCsvText(rows);
  fs::create_directories(out_dir);
  WriteFileAtomically((fs::path(out_dir) / "results.csv").string(), results);
  WriteFileAtomically((fs::path(out_dir) / "curves.csv").string(), curves);
}

std::vector<nlohmann::json> ReadResultsCsv(const std::string& path) {
  return ParseResultsCsv(ReadCsv(path), path);
}

std::vector<nlohmann::json> ParseResultsCsv(const std::vector<std::vector<std::string>>& table, const std::string& path) {
  if (table.empty()) throw DataError(path, 1, "empty results file");
  const std::vector<std::string>& header = table[0];
  for (const char* required : {"dataset", "engine", "threads", "status"}) {
    if (std::find(header.begin(), header.end(), required) == header.end()) {
      throw DataError(path, 1, std::string("not a results.csv: no '") + required + "' column");
    }
  }
  std::set<std::string> seen;
  for (const std::string& column : header) {
    if (!seen.insert(column).second) throw DataError(path, 1, "column '" + column + "' appears twice");
  }
  std::vector<nlohmann::json> rows;
  for (size_t r = 1; r < table.size(); ++r) {
    if (table[r].size() != header.size()) throw DataError(path, r + 1, "wrong number of fields");
    nlohmann::json row = nlohmann::json::object();
    for (size_t c = 0; c < header.size(); ++c) {
      const std::string& field = table[r][c];
      if (TextColumns().contains(header[c])) {
        row[header[c]] = field;
      } else if (!field.empty()) {  // an empty number is a value the cell did not have: absent
        row[header[c]] = Parsed(field);
      }
    }
    CheckRow(row, path, r + 1);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace sparsebench
