#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "datasets/dataset.h"
#include "engine/model/network.h"

namespace sparsebench {

// Forward and backward pass of one sample over the output neurons `active`, with softmax
// cross-entropy whose target puts 1/k on each of the sample's k labels. With labels_first,
// the labels are active[0, k) (as selectors place them); otherwise they are looked up.
// `hidden` holds Network::Hidden of the sample. Writes hidden_grad (dLoss/d pre-activation)
// and output_grads[a] (dLoss/d logit of active[a]); returns the loss. Weights are only read.
float ForwardBackward(const Network& net, const SparseRow& sample, std::span<const uint32_t> active,
                      bool labels_first, const float* hidden, float* hidden_grad,
                      std::vector<float>& output_grads);

}  // namespace sparsebench
