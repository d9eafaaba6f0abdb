#include "engine/model/network.h"

#include <algorithm>
#include <string>

#include "datasets/random.h"
#include "engine/api/engine_error.h"
#include "engine/common/memory_limit.h"
#include "engine/common/vector_ops.h"

namespace sparsebench {

uint64_t NetworkBytes(const NetworkShape& s) {
  const uint64_t h = s.hidden_dim;
  return (uint64_t{s.input_dim} * h + h + uint64_t{s.output_dim} * h + s.output_dim) * 3 *
         sizeof(float);
}

void CheckNetworkFits(const NetworkShape& s) {
  if (s.hidden_dim == 0) throw ConfigError("the network has no hidden units");
  CheckFitsInMemory(NetworkBytes(s), "a network of " + std::to_string(s.input_dim) + " inputs, " +
                                         std::to_string(s.hidden_dim) + " hidden units and " +
                                         std::to_string(s.output_dim) +
                                         " outputs (weights and Adam moments)");
}

namespace {

const NetworkShape& Checked(const NetworkShape& s) {
  CheckNetworkFits(s);
  return s;
}

}  // namespace

Network::Network(const NetworkShape& s, uint64_t seed, Storage output_storage)
    : shape(Checked(s)),
      input(s.input_dim, s.hidden_dim, s.hidden_dim),
      output(s.output_dim, s.hidden_dim, s.output_dim, output_storage) {
  input.Initialize(MixSeed(seed, 1), s.input_dim, s.hidden_dim);
  output.Initialize(MixSeed(seed, 2), s.hidden_dim, s.output_dim);
}

void Network::Hidden(std::span<const uint32_t> features, std::span<const float> values,
                     float* hidden) const {
  const uint32_t h = shape.hidden_dim;
  std::copy(input.bias.begin(), input.bias.end(), hidden);
  constexpr size_t kAhead = 4;
  for (size_t i = 0; i < std::min(kAhead, features.size()); ++i)
    PrefetchRow(input.row(features[i]), h * sizeof(float));
  for (size_t i = 0; i < features.size(); ++i) {
    if (i + kAhead < features.size())
      PrefetchRow(input.row(features[i + kAhead]), h * sizeof(float));
    Axpy(values[i], input.row(features[i]), hidden, h);
  }
  for (uint32_t j = 0; j < h; ++j) hidden[j] = std::max(hidden[j], 0.0f);
}

}  // namespace sparsebench
