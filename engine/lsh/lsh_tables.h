#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/common/aligned.h"

namespace sparsebench {

// L hash tables over neuron ids, each stored as CSR (bucket offsets + ids, every neuron once)
// so memory is ids + 4 bytes per bucket, not range x capacity. All tables share one offsets
// and one ids array, large enough for huge pages: buckets are read at random, and over tens of
// megabytes 4 KiB pages would make nearly every bucket a TLB miss. A bucket that more than
// `capacity` neurons hash to answers with a uniform random subset of `capacity` of them (the
// outcome of reservoir sampling over the insertions), shuffled to its front at build time. Codes of
// at most `range_bits` bits (any, when range_bits is 0) are their own bucket; longer ones are
// folded into the range by a hash.
class LshTables {
 public:
  // codes[t * rows + row] is row's code in table t (table-major: each build reads a stream).
  void Build(std::span<const uint32_t> codes, uint32_t rows, uint32_t tables, uint32_t code_bits,
             uint32_t range_bits, uint32_t capacity, uint64_t seed, int threads);

  // Allocates the ids of `tables` tables over `rows` neurons ahead of the first build.
  void Reserve(uint32_t rows, uint32_t tables) { AssignZeros(ids_, size_t{rows} * tables); }

  uint32_t tables() const { return tables_; }
  std::span<const uint32_t> Bucket(uint32_t table, uint32_t code) const {
    const uint32_t* offsets = OffsetsOf(table) + BucketOf(table, code);
    return {IdsOf(table) + offsets[0], std::min(offsets[1] - offsets[0], capacity_)};
  }
  [[gnu::always_inline]] void PrefetchBucketStart(uint32_t table, uint32_t code) const {
    __builtin_prefetch(OffsetsOf(table) + BucketOf(table, code));
  }
  size_t bytes() const;  // the tables themselves, not the build buffers

 private:
  const uint32_t* OffsetsOf(uint32_t table) const {
    return offsets_.data() + size_t{table} * ((size_t{1} << range_bits_) + 1);
  }
  const uint32_t* IdsOf(uint32_t table) const { return ids_.data() + size_t{table} * rows_; }
  uint32_t BucketOf(uint32_t table, uint32_t code) const;
  void BuildTable(std::span<const uint32_t> codes, uint32_t rows, uint32_t table, uint32_t capacity,
                  uint64_t seed);

  uint32_t range_bits_ = 0;
  uint32_t capacity_ = 0;
  uint32_t rows_ = 0;
  uint32_t tables_ = 0;
  bool fold_ = false;  // codes are longer than the range
  // Table t's bucket b holds ids_[t * rows_ + offsets_[t * (range + 1) + b] ...] up to the next
  // offset.
  std::vector<uint32_t, AlignedAllocator<uint32_t>> offsets_, ids_;
};

}  // namespace sparsebench
