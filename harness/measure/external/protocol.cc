#include "harness/measure/external/protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace sparsebench {

TopK ParsePredictions(const nlohmann::json& reply, size_t rows, uint32_t k, uint32_t labels,
                      const std::string& engine) {
  auto invalid = [&](const std::string& why) {
    return EngineFault(CellStatus::kInvalid,
                       fmt::format("engine {} answered a predict request with {}", engine, why));
  };
  const auto ids = reply.find("ids");
  if (ids == reply.end() || !ids->is_array()) throw invalid("no \"ids\" array");
  if (ids->size() != rows)
    throw invalid(fmt::format("{} rows where {} were asked for", ids->size(), rows));
  const uint32_t width = std::min(k, labels);
  TopK top{k, std::vector<uint32_t>(rows * k, std::numeric_limits<uint32_t>::max()),
           std::vector<float>(rows * k, -std::numeric_limits<float>::infinity())};
  for (size_t r = 0; r < rows; ++r) {
    const nlohmann::json& row = (*ids)[r];
    if (!row.is_array() || row.size() != width) {
      throw invalid(fmt::format("row {}: {} where {} label ids were asked for", r,
                                row.is_array() ? std::to_string(row.size()) + " ids" : row.dump(),
                                width));
    }
    for (uint32_t j = 0; j < width; ++j) {
      const nlohmann::json& id = row[j];
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= labels) {
        throw invalid(fmt::format("row {}: label id {} outside 0..{}", r, id.dump(), labels - 1));
      }
      const auto value = id.get<uint32_t>();
      uint32_t* out = &top.ids[r * k];
      if (std::find(out, out + j, value) != out + j)
        throw invalid(fmt::format("row {}: label id {} twice", r, value));
      out[j] = value;
      top.scores[r * k + j] = static_cast<float>(width - j);
    }
  }
  return top;
}

}  // namespace sparsebench
