#pragma once

#include <cstdint>

#include "engine/lsh/neuron_selector.h"

namespace sparsebench {

// Fills the LSH settings left "auto" (0) from the layer's width (`outputs`) and the active
// neurons per sample: hashes per table, tables, probes, DWTA bin size, bucket range and
// capacity. The rule: engine/README.md ("LSH sized from the width"); the measurements behind
// it: docs/engine-notes.md.
void ResolveLsh(SelectorParams& params, uint32_t outputs, uint32_t active);

}  // namespace sparsebench
