#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sparsebench {

// L hash tables over neuron ids, each stored as CSR (bucket offsets + ids) so memory is
// ids + 4 bytes per bucket, not range x capacity. A bucket that more than `capacity`
// neurons hash to keeps a uniform random subset of `capacity` (the outcome of reservoir
// sampling over the insertions).
class LshTables {
 public:
  // codes[t * rows + row] is row's code in table t (table-major: each build reads a stream).
  void Build(std::span<const uint32_t> codes, uint32_t rows, uint32_t tables, uint32_t range_bits,
             uint32_t capacity, uint64_t seed, int threads);

  uint32_t tables() const { return static_cast<uint32_t>(tables_.size()); }
  std::span<const uint32_t> Bucket(uint32_t table, uint32_t code) const {
    const Table& t = tables_[table];
    const uint32_t b = BucketOf(table, code);
    return std::span(t.ids).subspan(t.offsets[b], t.offsets[b + 1] - t.offsets[b]);
  }
  size_t bytes() const;  // the tables themselves, not the build buffers

 private:
  struct Table {
    std::vector<uint32_t> offsets;
    std::vector<uint32_t> ids;
    std::vector<uint32_t> scratch_buckets, scratch_counts, scratch_sorted;  // reused by builds
  };
  uint32_t BucketOf(uint32_t table, uint32_t code) const;
  void BuildTable(std::span<const uint32_t> codes, uint32_t rows, uint32_t table, uint32_t capacity,
                  uint64_t seed);

  uint32_t range_bits_ = 0;
  std::vector<Table> tables_;
};

}  // namespace sparsebench
