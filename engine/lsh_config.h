#pragma once

#include <cstdint>

#include "engine/neuron_selector.h"

namespace sparsebench {

// lsh=auto: fills the LSH settings left at 0 from the layer's width (`outputs`) and the
// number of active neurons per sample (`active`): hashes per table, tables, DWTA bin size,
// bucket range and bucket capacity. The rule and the measurements behind it are in
// engine/README.md ("Tables that fit the width").
void ResolveLsh(SelectorParams& params, uint32_t outputs, uint32_t active);

}  // namespace sparsebench
