#pragma once

#include <cstdint>
#include <string>

namespace sparsebench {

// The settings of a dense baseline ("blas:hidden=128", "torch:hidden=128,device=cpu"):
// the engine's architecture with every output neuron active.
struct DenseSpec {
  std::string family;
  uint32_t hidden = 128;
  std::string device = "cpu";  // torch only

  static DenseSpec Parse(const std::string& text, const std::string& family);
  std::string Canonical() const;
};

}  // namespace sparsebench
