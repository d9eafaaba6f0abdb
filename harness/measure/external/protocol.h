#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "datasets/metrics.h"
#include "harness/record/cell_status.h"

namespace sparsebench {

// The newest version of the line protocol external engines speak (tools/engines/README.md).
// The handshake offers it and version 1, and refuses any other.
inline constexpr int kProtocolVersion = 2;

// A misbehaving external engine: the status its row gets (protocol_error, invalid, timeout,
// crash, error) and why, naming the engine.
class EngineFault : public std::runtime_error {
 public:
  EngineFault(CellStatus status, const std::string& reason)
      : std::runtime_error(reason), status_(status) {}
  CellStatus status() const { return status_; }

 private:
  CellStatus status_;
};

// `message[key]` as T: `fallback` when absent or null; EngineFault "protocol_error" naming
// `engine`, the message and the key when it holds another type, or a number T cannot hold.
template <typename T>
T Field(const nlohmann::json& message, const std::string& key, T fallback,
        const std::string& engine) {
  const auto it = message.find(key);
  if (it == message.end() || it->is_null()) return fallback;
  bool fits = false;
  if constexpr (std::is_same_v<T, std::string>) {
    fits = it->is_string();
  } else if constexpr (std::is_floating_point_v<T>) {
    fits = it->is_number() && std::isfinite(it->template get<double>());
  } else if constexpr (std::is_unsigned_v<T>) {
    fits =
        it->is_number_unsigned() && it->template get<uint64_t>() <= std::numeric_limits<T>::max();
  } else {
    fits = it->is_number_unsigned() ? it->template get<uint64_t>() <=
                                          static_cast<uint64_t>(std::numeric_limits<T>::max())
                                    : it->is_number_integer();
  }
  if (!fits) {
    throw EngineFault(CellStatus::kProtocolError,
                      "engine " + engine + " sent " +
                          message.value("op", std::string("a message")) + " with \"" + key +
                          "\": " + it->dump() + ", a value of the wrong type or range");
  }
  return it->template get<T>();
}

// The top-k of a "predictions" reply for `rows` rows: each row min(k, labels) distinct ids below
// `labels`, padded as ExactTopK pads (UINT32_MAX). EngineFault "invalid" naming `engine`, the
// row and the reason otherwise.
TopK ParsePredictions(const nlohmann::json& reply, size_t rows, uint32_t k, uint32_t labels,
                      const std::string& engine);

}  // namespace sparsebench
