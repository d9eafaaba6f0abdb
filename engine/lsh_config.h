#pragma once

#include <cstdint>

#include "engine/neuron_selector.h"

namespace sparsebench {

// Fills the LSH settings left "auto" (0) from the layer's width (`outputs`) and the active
// neurons per sample: hashes per table, tables, probes, DWTA bin size, bucket range and
// capacity. The rule and the measurements behind it
// are in engine/README.md ("Tables that fit the width").
void ResolveLsh(SelectorParams& params, uint32_t outputs, uint32_t active);

}  // namespace sparsebench
