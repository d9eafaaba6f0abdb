#pragma once

#include <cstdint>
#include <string>

namespace sparsebench {

// The settings of a dense baseline ("blas:hidden=128,adam=lazy",
// "torch:hidden=128,embedding_grad=sparse,device=cpu"): the engine's architecture with every
// output neuron active. The optimizer key chooses how the input table (one row per feature)
// is updated: `blas:adam=lazy` and `torch:embedding_grad=sparse` (the defaults, what an expert
// uses for a large embedding table) update only the rows of the features in the batch;
// `adam=dense` and `embedding_grad=dense` run Adam over the whole table every step, as
// torch.optim.Adam does with a dense gradient. `torch:precision=bf16` runs the products in
// bf16, as a PyTorch user on a bf16-capable CPU would with torch.autocast.
struct DenseSpec {
  std::string family;
  uint32_t hidden = 128;
  bool sparse_input_update = true;  // blas: adam=lazy; torch: embedding_grad=sparse
  std::string device = "cpu";       // torch only
  // torch only: "fp32", or "bf16" (LibTorch's CPU autocast: bf16 matrix products through
  // oneDNN, fp32 weights, optimizer and loss).
  std::string precision = "fp32";

  static DenseSpec Parse(const std::string& text, const std::string& family);
  std::string Canonical() const;
};

}  // namespace sparsebench
