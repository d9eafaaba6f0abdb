#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "datasets/dataset.h"
#include "engine/common/vector_ops.h"
#include "engine/model/parameters.h"

namespace sparsebench {

struct NetworkShape {
  uint32_t input_dim = 0;
  uint32_t hidden_dim = 128;
  uint32_t output_dim = 0;
};

// Bytes of a network's weights, biases and their Adam moments.
uint64_t NetworkBytes(const NetworkShape& shape);
// ConfigError when hidden_dim is 0 or NetworkBytes exceeds the physical memory.
void CheckNetworkFits(const NetworkShape& shape);

// Sparse input -> dense hidden layer (ReLU) -> output layer (softmax) whose active neurons
// are chosen per input by a selector (engine/lsh/). Weights are shared by all threads.
struct Network {
  NetworkShape shape;
  Parameters input;   // rows: input features; bias: hidden units
  Parameters output;  // rows and bias: output neurons

  Network() = default;
  // ConfigError, before allocating, when the weights and Adam moments would not fit in
  // this machine's memory (CheckNetworkFits). The output layer is kept in `output_storage`.
  Network(const NetworkShape& shape, uint64_t seed, Storage output_storage = {});
  size_t bytes() const { return input.bytes() + output.bytes(); }
  // hidden = ReLU(input.bias + sum_f value_f * input.row(f)).
  void Hidden(std::span<const uint32_t> features, std::span<const float> values,
              float* hidden) const;
  float Logit(uint32_t neuron, const float* hidden) const {
    const float dot = output.bf16_weights() ? Dot(output.row16(neuron), hidden, shape.hidden_dim)
                                            : Dot(output.row(neuron), hidden, shape.hidden_dim);
    return dot + output.bias[neuron];
  }
};

}  // namespace sparsebench
