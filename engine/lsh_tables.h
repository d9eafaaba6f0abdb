#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace sparsebench {

// L hash tables over neuron ids, each stored as CSR (bucket offsets + ids, every neuron once)
// so memory is ids + 4 bytes per bucket, not range x capacity. A bucket that more than
// `capacity` neurons hash to answers with a uniform random subset of `capacity` of them (the
// outcome of reservoir sampling over the insertions), shuffled to its front at build time. Codes of at most `range_bits` bits (any, when range_bits is
// 0) are their own bucket; longer ones are folded into the range by a hash.
class LshTables {
 public:
  // codes[t * rows + row] is row's code in table t (table-major: each build reads a stream).
  void Build(std::span<const uint32_t> codes, uint32_t rows, uint32_t tables, uint32_t code_bits,
             uint32_t range_bits, uint32_t capacity, uint64_t seed, int threads);

  uint32_t tables() const { return static_cast<uint32_t>(tables_.size()); }
  std::span<const uint32_t> Bucket(uint32_t table, uint32_t code) const {
    const Table& t = tables_[table];
    const uint32_t b = BucketOf(table, code);
    return std::span(t.ids).subspan(t.offsets[b], std::min(t.offsets[b + 1] - t.offsets[b], capacity_));
  }
  [[gnu::always_inline]] void PrefetchBucketStart(uint32_t table, uint32_t code) const {
    __builtin_prefetch(tables_[table].offsets.data() + BucketOf(table, code));
  }
  size_t bytes() const;  // the tables themselves, not the build buffers

 private:
  struct Table {
    std::vector<uint32_t> offsets;
    std::vector<uint32_t> ids;
  };
  uint32_t BucketOf(uint32_t table, uint32_t code) const;
  void BuildTable(std::span<const uint32_t> codes, uint32_t rows, uint32_t table, uint32_t capacity,
                  uint64_t seed);

  uint32_t range_bits_ = 0;
  uint32_t capacity_ = 0;
  bool fold_ = false;  // codes are longer than the range
  std::vector<Table> tables_;
};

}  // namespace sparsebench
