#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/model/network.h"
#include "engine/train/trainer.h"

namespace sparsebench {

// The bytes an epoch's phases move at the least, from its exact counts and the layers'
// storage: each distinct row a batch touches is read once per phase, and written once where the
// phase updates it, as if no row stayed in cache from one batch or phase to the next. With a
// measured bandwidth for each access pattern (engine/bench/memory_bench) it gives the floor.
struct PhaseBytes {
  // The samples phase. At random: the input rows the forward pass reads, and the bucket offsets
  // and ids the selections read. In ascending row order: the output rows scored (weights, bias).
  uint64_t input_rows_read = 0, buckets_read = 0, output_rows_read = 0;
  // The update phase, in ascending row order: the updated rows' weights and Adam moments (the
  // output rows' biases too), read and written.
  uint64_t output_rows_updated = 0, input_rows_updated = 0;
  // Per rebuild, in order: the output weights read and the tables (`table_bytes`) written.
  uint64_t rebuild = 0;

  uint64_t samples() const { return input_rows_read + buckets_read + output_rows_read; }
  uint64_t update() const { return output_rows_updated + input_rows_updated; }
};

PhaseBytes BytesMoved(const EpochStats& stats, const Network& net, size_t table_bytes);

}  // namespace sparsebench
