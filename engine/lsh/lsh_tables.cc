#include "engine/lsh/lsh_tables.h"

#include <algorithm>
#include <cassert>

#include "datasets/random.h"

namespace sparsebench {

uint32_t LshTables::BucketOf(uint32_t table, uint32_t code) const {
  if (!fold_) return code;
  return static_cast<uint32_t>(Mix64(code ^ (uint64_t{table} << 32)) >> (64 - range_bits_));
}

void LshTables::Build(std::span<const uint32_t> codes, uint32_t rows, uint32_t tables,
                      uint32_t code_bits, uint32_t range_bits, uint32_t capacity, uint64_t seed,
                      int threads) {
  assert(codes.size() == size_t{rows} * tables && range_bits <= 30 && code_bits <= 32);
  fold_ = range_bits != 0 && code_bits > range_bits;
  capacity_ = capacity;
  range_bits_ = fold_ ? range_bits : code_bits;
  rows_ = rows;
  tables_ = tables;
  offsets_.resize(size_t{tables} * ((size_t{1} << range_bits_) + 1));
  if (ids_.size() != size_t{rows} * tables) AssignZeros(ids_, size_t{rows} * tables);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (uint32_t t = 0; t < tables; ++t) BuildTable(codes, rows, t, capacity, seed);
}

void LshTables::BuildTable(std::span<const uint32_t> codes, uint32_t rows, uint32_t table,
                           uint32_t capacity, uint64_t seed) {
  const uint32_t range = 1u << range_bits_;
  const uint32_t* table_codes = codes.data() + size_t{table} * rows;
  uint32_t* offsets = offsets_.data() + size_t{table} * (size_t{range} + 1);
  uint32_t* ids = ids_.data() + size_t{table} * rows;
  // Counting sort: offsets[b] counts bucket b, then becomes its end, then (filled from the
  // last row down) its start; ids stay ascending within a bucket.
  std::fill(offsets, offsets + range + 1, 0u);
  for (uint32_t r = 0; r < rows; ++r) ++offsets[BucketOf(table, table_codes[r])];
  for (uint32_t b = 1; b <= range; ++b) offsets[b] += offsets[b - 1];
  // The fill is a store to a random place in a table of megabytes: each one's line is fetched
  // kAhead rows early (the place is where that row's bucket ends now; rows in between that
  // share the bucket move it by an id each, rarely off the line), so that the stores do not
  // wait on their misses one after another.
  constexpr uint32_t kAhead = 32;
  for (uint32_t r = rows; r-- > 0;) {
    if (r >= kAhead) {
      const uint32_t end = offsets[BucketOf(table, table_codes[r - kAhead])];
      __builtin_prefetch(ids + end - (end > 0), 1);
    }
    ids[--offsets[BucketOf(table, table_codes[r])]] = r;
  }
  Rng rng(MixSeed(seed, table));
  for (uint32_t b = 0; b < range; ++b) {
    const uint32_t size = offsets[b + 1] - offsets[b];
    if (size <= capacity) continue;
    uint32_t* first = ids + offsets[b];
    for (uint32_t i = 0; i < capacity; ++i) std::swap(first[i], first[i + rng.Below(size - i)]);
  }
}

size_t LshTables::bytes() const { return (offsets_.size() + ids_.size()) * sizeof(uint32_t); }

}  // namespace sparsebench
