#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/model/network.h"
#include "engine/train/trainer.h"

namespace sparsebench {

// The bytes an epoch's phases move at the least, from its exact counts and the layers'
// storage: each distinct row a batch touches is read once per phase, and written once where the
// phase updates it, as if no row stayed in cache from one batch or phase to the next. With a
// measured bandwidth for such accesses (engine/bench/memory_bench) it gives the phase's floor.
struct PhaseBytes {
  // The input rows the forward pass reads, the bucket offsets and ids the selections read, the
  // output rows (weights and bias) scored.
  uint64_t samples = 0;
  // The updated rows' weights and Adam moments (the output rows' biases too), read and written.
  uint64_t update = 0;
  // Per rebuild: the output weights read and the tables (`table_bytes`) written.
  uint64_t rebuild = 0;
};

PhaseBytes BytesMoved(const EpochStats& stats, const Network& net, size_t table_bytes);

}  // namespace sparsebench
