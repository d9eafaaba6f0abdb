#include "engine/train/memory_traffic.h"

namespace sparsebench {
namespace {

// A row's weights, and one of its moments, in the layer's storage.
uint64_t WeightRowBytes(const Parameters& p) {
  return uint64_t{p.dim} * (p.bf16_weights() ? 2 : 4);
}
uint64_t MomentRowBytes(const Parameters& p) {
  return uint64_t{p.dim} * (p.bf16_moments() ? 2 : 4);
}

constexpr uint64_t kIdBytes = sizeof(uint32_t), kBucketBytes = sizeof(uint32_t);
constexpr uint64_t kBiasBytes = sizeof(float);

}  // namespace

PhaseBytes BytesMoved(const EpochStats& s, const Network& net, size_t table_bytes) {
  const uint64_t in_row = WeightRowBytes(net.input), out_row = WeightRowBytes(net.output);
  PhaseBytes b;
  b.input_rows_read = s.input_rows_updated * in_row;
  b.buckets_read = s.buckets_probed * kBucketBytes + s.bucket_ids_read * kIdBytes;
  b.output_rows_read = s.output_rows_updated * (out_row + kBiasBytes);
  const uint64_t out_state = out_row + 2 * MomentRowBytes(net.output) + 3 * kBiasBytes;
  const uint64_t in_state = in_row + 2 * MomentRowBytes(net.input);
  b.output_rows_updated = 2 * s.output_rows_updated * out_state;
  b.input_rows_updated = 2 * s.input_rows_updated * in_state;
  b.rebuild = uint64_t{s.rebuilds} * (uint64_t{net.shape.output_dim} * out_row + table_bytes);
  return b;
}

}  // namespace sparsebench
