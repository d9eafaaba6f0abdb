#include "engine/lsh_tables.h"

#include <algorithm>
#include <cassert>

#include "datasets/random.h"

namespace sparsebench {

uint32_t LshTables::BucketOf(uint32_t table, uint32_t code) const {
  return static_cast<uint32_t>(Mix64(code ^ (uint64_t{table} << 32)) >> (64 - range_bits_));
}

void LshTables::Build(std::span<const uint32_t> codes, uint32_t rows, uint32_t tables,
                      uint32_t range_bits, uint32_t capacity, uint64_t seed, int threads) {
  assert(codes.size() == size_t{rows} * tables && range_bits >= 1 && range_bits <= 30);
  range_bits_ = range_bits;
  tables_.resize(tables);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (uint32_t t = 0; t < tables; ++t) BuildTable(codes, rows, t, capacity, seed);
}

void LshTables::BuildTable(std::span<const uint32_t> codes, uint32_t rows, uint32_t table,
                           uint32_t capacity, uint64_t seed) {
  const uint32_t range = 1u << range_bits_;
  const uint32_t* table_codes = codes.data() + size_t{table} * rows;
  Table& t = tables_[table];
  std::vector<uint32_t>& buckets = t.scratch_buckets;
  std::vector<uint32_t>& counts = t.scratch_counts;
  buckets.resize(rows);
  counts.assign(size_t{range} + 1, 0);
  for (uint32_t r = 0; r < rows; ++r) {
    buckets[r] = BucketOf(table, table_codes[r]);
    ++counts[buckets[r] + 1];
  }
  for (uint32_t b = 0; b < range; ++b) counts[b + 1] += counts[b];
  std::vector<uint32_t>& sorted = t.scratch_sorted;
  sorted.resize(rows);
  for (uint32_t r = 0; r < rows; ++r) sorted[counts[buckets[r]]++] = r;
  for (uint32_t b = range; b > 0; --b) counts[b] = counts[b - 1];  // back to bucket starts
  counts[0] = 0;
  Rng rng(MixSeed(seed, table));
  t.offsets.assign(size_t{range} + 1, 0);
  t.ids.clear();
  t.ids.reserve(std::min<size_t>(rows, size_t{range} * capacity));
  for (uint32_t b = 0; b < range; ++b) {
    auto first = sorted.begin() + counts[b];
    const uint32_t size = counts[b + 1] - counts[b];
    const uint32_t keep = std::min(size, capacity);
    for (uint32_t i = 0; i < keep && size > capacity; ++i) {
      std::swap(first[i], first[i + rng.Below(size - i)]);
    }
    t.ids.insert(t.ids.end(), first, first + keep);
    t.offsets[b + 1] = static_cast<uint32_t>(t.ids.size());
  }
}

size_t LshTables::bytes() const {
  size_t total = 0;
  for (const Table& t : tables_) total += (t.offsets.size() + t.ids.size()) * sizeof(uint32_t);
  return total;
}

}  // namespace sparsebench
