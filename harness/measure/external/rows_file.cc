#include "harness/measure/external/rows_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace sparsebench {
namespace {

void AppendRow(const Dataset& data, size_t r, bool with_labels, std::string& out) {
  const bool features = data.has_features();
  const SparseRow row = features ? data.row(r) : SparseRow{};
  out += "{\"ids\":[";
  for (size_t i = 0; i < row.features.size(); ++i)
    fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", row.features[i]);
  out += "],\"values\":[";
  for (size_t i = 0; i < row.values.size(); ++i)
    fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", row.values[i]);
  out += ']';
  if (with_labels) {
    out += ",\"labels\":[";
    const auto labels = data.labels(r);
    for (size_t i = 0; i < labels.size(); ++i)
      fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", labels[i]);
    out += ']';
  }
  if (data.has_text()) {
    out += ",\"text\":";
    out += nlohmann::json(std::string(data.text.at(r)))
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  out += '}';
}

}  // namespace

void WriteRowsFile(const Dataset& data, bool with_labels, const std::string& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  const nlohmann::json header = {{"format", "sparsebench-rows"}, {"version", 1},
                                 {"rows", data.rows()},          {"features", data.num_features},
                                 {"labels", data.num_labels},    {"text", data.has_text()},
                                 {"has_labels", with_labels}};
  std::string out = header.dump() + "\n";
  for (size_t r = 0; r < data.rows(); ++r) {
    AppendRow(data, r, with_labels, out);
    out += '\n';
    if (out.size() > (1 << 22) || r + 1 == data.rows()) {
      file.write(out.data(), static_cast<std::streamsize>(out.size()));
      out.clear();
    }
  }
  if (data.rows() == 0) file << out;
  file.close();
  if (!file)
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

std::string LabelsFileText(const Dataset& data) {
  std::string out = nlohmann::json({{"format", "sparsebench-labels"},
                                    {"version", 1},
                                    {"rows", data.rows()},
                                    {"labels", data.num_labels}})
                        .dump() +
                    "\n";
  for (size_t r = 0; r < data.rows(); ++r) {
    out += '[';
    const auto labels = data.labels(r);
    for (size_t i = 0; i < labels.size(); ++i)
      fmt::format_to(std::back_inserter(out), "{}{}", i ? "," : "", labels[i]);
    out += "]\n";
  }
  return out;
}

std::string RowWithoutLabels(const Dataset& data, size_t row) {
  std::string text;
  AppendRow(data, row, false, text);
  return text;
}

}  // namespace sparsebench
