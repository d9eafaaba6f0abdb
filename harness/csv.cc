#include "harness/csv.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "datasets/data_error.h"

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
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) throw DataError(path, 0, "no such file");
  if (!std::filesystem::is_regular_file(status)) throw DataError(path, 0, "not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, 0, "cannot open the file");
  constexpr uintmax_t kMaxBytes = uintmax_t{1} << 30;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw DataError(path, 0, "cannot read the file: " + error.message());
  if (size > kMaxBytes) throw DataError(path, 0, "larger than 1 GiB: not a table this program writes");
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return ParseCsv(text, path);
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

void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw DataError(temporary, 0, "cannot write the file");
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace sparsebench
