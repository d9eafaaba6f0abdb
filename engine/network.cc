#include "engine/network.h"

#include <algorithm>

#include "datasets/random.h"
#include "engine/vector_ops.h"

namespace sparsebench {

Network::Network(const NetworkShape& s, uint64_t seed)
    : shape(s), input(s.input_dim, s.hidden_dim, s.hidden_dim), output(s.output_dim, s.hidden_dim, s.output_dim) {
  input.Initialize(MixSeed(seed, 1), s.input_dim, s.hidden_dim);
  output.Initialize(MixSeed(seed, 2), s.hidden_dim, s.output_dim);
}

void Network::Hidden(std::span<const uint32_t> features, std::span<const float> values,
                     float* hidden) const {
  const uint32_t h = shape.hidden_dim;
  std::copy(input.bias.begin(), input.bias.end(), hidden);
  constexpr size_t kAhead = 4;
  for (size_t i = 0; i < std::min(kAhead, features.size()); ++i) PrefetchRow(input.row(features[i]), h * sizeof(float));
  for (size_t i = 0; i < features.size(); ++i) {
    if (i + kAhead < features.size()) PrefetchRow(input.row(features[i + kAhead]), h * sizeof(float));
    Axpy(values[i], input.row(features[i]), hidden, h);
  }
  for (uint32_t j = 0; j < h; ++j) hidden[j] = std::max(hidden[j], 0.0f);
}


}  // namespace sparsebench
