#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "datasets/metrics.h"

namespace sparsebench {

// The version of the line protocol external engines speak (tools/engines/README.md). The
// handshake refuses any other.
inline constexpr int kProtocolVersion = 1;

// A misbehaving external engine: the status its row gets ("protocol_error", "invalid",
// "timeout", "crash", "error") and why, naming the engine.
class EngineFault : public std::runtime_error {
 public:
  EngineFault(std::string status, const std::string& reason)
      : std::runtime_error(reason), status_(std::move(status)) {}
  const std::string& status() const { return status_; }

 private:
  std::string status_;
};

// The top-k of a "predictions" reply for `rows` rows: each row min(k, labels) distinct ids below
// `labels`, padded as ExactTopK pads (UINT32_MAX). EngineFault "invalid" naming `engine`, the
// row and the reason otherwise.
TopK ParsePredictions(const nlohmann::json& reply, size_t rows, uint32_t k, uint32_t labels,
                      const std::string& engine);

}  // namespace sparsebench
