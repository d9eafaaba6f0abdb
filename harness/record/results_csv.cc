#include "harness/record/results_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

#include "datasets/data_error.h"
#include "harness/record/csv.h"
#include "harness/record/target_rule.h"

namespace sparsebench {
namespace {

// A number field, or nothing when it is not one.
std::optional<double> Number(const std::string& field) {
  char* end = nullptr;
  const double number = std::strtod(field.c_str(), &end);
  if (field.empty() || *end != '\0') return std::nullopt;
  return number;
}

std::string PointText(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : ""; }

// Sets one field of a record from its results.csv text; the reason it cannot otherwise.
struct FieldSetter {
  CellResult& r;
  const Column& c;
  const std::string& field;
  std::string operator()(std::string CellResult::*m) const {
    r.*m = field;
    return "";
  }
  std::string operator()(std::optional<double> CellResult::*m) const {
    if (field.empty()) return "";  // a value the cell did not have
    r.*m = Number(field);
    return r.*m ? "" : fmt::format("'{}' must be a number", c.name);
  }
  std::string operator()(CellStatus CellResult::*m) const {
    const auto status = ParseCellStatus(field);
    if (status) r.*m = *status;
    return status ? ""
                  : fmt::format("'{}' is '{}', not one of {}", c.name, field, CellStatusTexts());
  }
  std::string operator()(StopReason CellResult::*m) const {
    const auto reason = ParseStopReason(field);
    if (reason) r.*m = *reason;
    return reason ? ""
                  : fmt::format("'{}' is '{}', not one of {}", c.name, field, StopReasonTexts());
  }
  template <typename Int>
  std::string operator()(std::optional<Int> CellResult::*m) const {
    if (field.empty()) return "";
    Int whole = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), whole);
    const std::optional<double> d = Number(field);
    const double max = c.max > 0 ? c.max : 1.8e19;
    if (error == std::errc() && end == field.data() + field.size() && whole >= 0 && whole <= max) {
      r.*m = whole;
    } else if (d && *d >= 0 && *d <= max && *d == std::floor(*d)) {
      r.*m = static_cast<Int>(*d);
    } else {
      return d ? fmt::format("'{}' must be a whole number from 0 to {}", c.name, MaxText(c))
               : fmt::format("'{}' must be a number", c.name);
    }
    return "";
  }
};

std::string SetField(CellResult& r, const Column& c, const std::string& field) {
  return std::visit(FieldSetter{r, c, field}, c.member);
}

const Column* FindColumn(const std::string& name) {
  for (const Column& c : Columns()) {
    if (c.in_csv && c.name == name) return &c;
  }
  return nullptr;
}

void CheckHeader(const std::vector<std::string>& header, const std::string& path,
                 const std::vector<const char*>& required, const char* what) {
  for (const char* column : required) {
    if (std::find(header.begin(), header.end(), column) == header.end()) {
      throw DataError(path, 1, fmt::format("not a {}: no '{}' column", what, column));
    }
  }
  std::set<std::string> seen;
  for (const std::string& column : header) {
    if (!seen.insert(column).second)
      throw DataError(path, 1, "column '" + column + "' appears twice");
  }
}

}  // namespace

std::string ResultsCsvText(const std::vector<CellResult>& rows) {
  std::string text = CsvLine(ResultColumns());
  std::vector<std::string> fields;
  for (const CellResult& r : rows) {
    fields.clear();
    for (const Column& c : Columns()) {
      if (c.in_csv) fields.push_back(ColumnText(r, c));
    }
    text += CsvLine(fields);
  }
  return text;
}

std::vector<CellResult> ReadResultsCsv(const std::string& path) {
  return ParseResultsCsv(ReadCsv(path), path);
}

std::vector<CellResult> ParseResultsCsv(const std::vector<std::vector<std::string>>& table,
                                        const std::string& path) {
  if (table.empty()) throw DataError(path, 1, "empty results file");
  const std::vector<std::string>& header = table[0];
  CheckHeader(header, path, {"dataset", "engine", "threads", "status"}, "results.csv");
  std::vector<const Column*> columns;
  for (const std::string& name : header) columns.push_back(FindColumn(name));
  std::vector<CellResult> rows;
  for (size_t line = 1; line < table.size(); ++line) {
    if (table[line].size() != header.size())
      throw DataError(path, line + 1, "wrong number of fields");
    CellResult r;
    for (size_t i = 0; i < header.size(); ++i) {
      if (columns[i] == nullptr) continue;  // a column of another version
      const std::string why = SetField(r, *columns[i], table[line][i]);
      if (!why.empty()) throw DataError(path, line + 1, "not a cell result: " + why);
    }
    if (!r.target_rule.empty()) {
      try {
        TargetRule::Parse(r.target_rule);
      } catch (const std::invalid_argument& e) {
        throw DataError(path, line + 1, std::string("not a cell result: ") + e.what());
      }
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string CurvesCsvText(const std::vector<CellResult>& rows) {
  std::string text =
      CsvLine({"cell_id", "machine", "dataset", "engine", "threads", "repeat", "seconds", "epoch",
               "metric", "value", "active_recall_at_5", "label_recall"});
  auto whole = [](const std::optional<int64_t>& v) {
    return v ? std::to_string(*v) : std::string();
  };
  for (const CellResult& r : rows) {
    for (const CurvePoint& p : r.curve) {
      text += CsvLine({r.cell_id, r.machine, r.dataset, r.name, whole(r.threads), whole(r.repeat),
                       PointText(p.seconds), PointText(p.epoch), r.metric, PointText(p.value),
                       PointText(p.active_recall_at_5), PointText(p.label_recall)});
    }
  }
  return text;
}

void ReadCurvesCsv(const std::string& path, std::vector<CellResult>& rows) {
  const auto table = ReadCsv(path);
  if (table.empty()) throw DataError(path, 1, "empty curves file");
  const std::vector<std::string>& header = table[0];
  const std::vector<const char*> needed = {
      "cell_id", "seconds", "epoch", "value", "active_recall_at_5", "label_recall"};
  CheckHeader(header, path, needed, "curves.csv");
  std::map<std::string, size_t> at;
  for (const char* name : needed)
    at[name] = std::find(header.begin(), header.end(), name) - header.begin();
  std::map<std::pair<std::string, std::string>, CellResult*> by_id;  // cell_id, machine
  for (CellResult& r : rows) {
    by_id.try_emplace({r.cell_id, r.machine}, &r);
    r.curve.clear();
  }
  const size_t machine = std::find(header.begin(), header.end(), "machine") - header.begin();
  for (size_t line = 1; line < table.size(); ++line) {
    const auto& f = table[line];
    if (f.size() != header.size()) throw DataError(path, line + 1, "wrong number of fields");
    const auto row =
        by_id.find({f[at["cell_id"]], machine < f.size() ? f[machine] : std::string()});
    if (row == by_id.end())
      throw DataError(path, line + 1,
                      "a curve of cell '" + f[at["cell_id"]] + "', which has no result row");
    CurvePoint p;
    std::optional<double>* fields[] = {&p.seconds, &p.epoch, &p.value, &p.active_recall_at_5,
                                       &p.label_recall};
    for (size_t i = 0; i < 5; ++i) {
      const std::string& text = f[at[needed[i + 1]]];
      *fields[i] = Number(text);
      if (!text.empty() && !*fields[i])
        throw DataError(path, line + 1, fmt::format("'{}' must be a number", needed[i + 1]));
    }
    row->second->curve.push_back(p);
  }
}

}  // namespace sparsebench
