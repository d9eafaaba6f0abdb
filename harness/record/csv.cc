#include "harness/record/csv.h"

#include <fmt/format.h>

#include <string_view>

#include "datasets/data_error.h"
#include "harness/record/files.h"

namespace sparsebench {

std::string CsvField(const std::string& value) {
  if (value.find_first_of(",\"\n\r") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string CsvLine(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + CsvField(fields[i]);
  return line + "\n";
}

std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  return ParseCsv(ReadRegularFile(path, uintmax_t{1} << 30, "a table this program writes"), path);
}

std::vector<std::vector<std::string>> ParseCsv(const std::string& text, const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  uint64_t line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else if (c == '"') quoted = false;
      else field += c, line += c == '\n';
    } else if (c == '"' && field.empty()) {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(std::move(field)), field.clear(), any = true;
    } else if (c == '\n') {
      row.push_back(std::move(field)), field.clear();
      rows.push_back(std::move(row)), row.clear();
      any = false, ++line;
    } else if (c != '\r') {
      field += c, any = true;
    }
  }
  if (quoted) throw DataError(path, line, "unterminated quoted field");
  if (any || !field.empty()) rows.push_back(std::move(row)), rows.back().push_back(field);
  return rows;
}

}  // namespace sparsebench
