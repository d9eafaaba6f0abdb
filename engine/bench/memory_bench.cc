// This machine's bandwidth for what the engine's phases do to memory, in a table that fits the
// last-level cache or one far past it: rows read or read-modified-written at random (the
// forward pass's input rows, the selections' buckets) and in ascending order at a density
// (a batch's scores and Adam steps over its distinct rows; at 100%, a rebuild's stream). Run:
//   build/release/engine/bench/memory_bench --benchmark_format=json > bench.json
// and tools/memory-floor prices an epoch's counted bytes with it. bytes_per_second counts a
// written row twice; rows are prefetched 8 ahead as the engine prefetches them (RandomRows:
// with and without).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>

#include "datasets/random.h"
#include "engine/common/aligned.h"
#include "engine/common/vector_ops.h"

namespace sparsebench {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kMaxTableBytes = 4096 * kMiB;  // past the caches (480 MiB of L3 on some VMs)
constexpr int64_t kRowsPerIteration = int64_t{1} << 16;
constexpr int64_t kAhead = 8;

// The table, first touched by two threads as a trained layer's pages are.
FloatVector& Table() {
  static FloatVector table = [] {
    FloatVector t(kMaxTableBytes / sizeof(float));
    const auto n = static_cast<int64_t>(t.size());
#pragma omp parallel for num_threads(2) schedule(static)
    for (int64_t i = 0; i < n; ++i) t[static_cast<size_t>(i)] = static_cast<float>(i & 1023);
    return t;
  }();
  return table;
}

// The i-th row of a pass, drawn uniformly from `rows` and new at every pass, as active neurons
// and touched input rows fall.
uint64_t RowOf(uint64_t pass, int64_t i, uint64_t rows) {
  return Mix64((pass << 32) ^ static_cast<uint64_t>(i)) % rows;
}

float ReadRow(const float* row, size_t floats) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (size_t j = 0; j < floats; ++j) sum += row[j];
  return sum;
}

void UpdateRow(float* row, size_t floats) {
#pragma omp simd
  for (size_t j = 0; j < floats; ++j) row[j] = row[j] * 0.999f + 0.001f;
}

// One pass over `count` rows, the i-th at row_of(i), on `threads`, each row read (summed into
// the result) or read-modified-written; with `prefetch`, rows 8 ahead are fetched first.
template <typename RowOf>
float VisitRows(float* table, size_t row_bytes, int64_t count, int threads, bool write,
                bool prefetch, RowOf row_of) {
  const size_t floats = row_bytes / sizeof(float);
  float sink = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sink)
  for (int64_t i = 0; i < count; ++i) {
    if (prefetch && i + kAhead < count)
      PrefetchBytesL2(table + row_of(i + kAhead) * floats, row_bytes);
    float* row = table + row_of(i) * floats;
    if (write) {
      UpdateRow(row, floats);
    } else {
      sink += ReadRow(row, floats);
    }
  }
  return sink;
}

void SetBytes(benchmark::State& state, int64_t rows, size_t row_bytes, bool write) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * rows *
                          static_cast<int64_t>(row_bytes * (write ? 2 : 1)));
}

void BM_RandomRows(benchmark::State& state, bool write) {
  const auto row_bytes = static_cast<size_t>(state.range(0));
  const size_t table_bytes = static_cast<size_t>(state.range(1)) * kMiB;
  const int threads = static_cast<int>(state.range(2));
  const bool prefetch = state.range(3) != 0;
  const uint64_t rows = table_bytes / row_bytes;
  float* table = Table().data();  // made before the clock starts
  uint64_t pass = 0;
  for (auto _ : state) {
    ++pass;
    benchmark::DoNotOptimize(VisitRows(table, row_bytes, kRowsPerIteration, threads, write,
                                       prefetch, [&](int64_t i) { return RowOf(pass, i, rows); }));
  }
  SetBytes(state, kRowsPerIteration, row_bytes, write);
}

// Row sizes: a bucket's line, a 128-wide bf16 row, a 128-wide float row. Tables: 16 MiB (one
// array of the amazon670k 0.1 output layer in bf16) and 4 GiB (memory).
void RandomArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"row_bytes", "table_mib", "threads", "prefetch"});
  for (int64_t bytes : {64, 256, 512})
    for (int64_t mib : {16, 4096})
      for (int64_t threads : {1, 2})
        for (int64_t prefetch : {0, 1}) b->Args({bytes, mib, threads, prefetch});
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}
BENCHMARK_CAPTURE(BM_RandomRows, read, false)->Apply(RandomArgs);
BENCHMARK_CAPTURE(BM_RandomRows, update, true)->Apply(RandomArgs);

// Rows visited in ascending order, each row of the table in the list with probability
// density / 100, split over the threads in contiguous ranges: how the engine's updates and
// scores walk the distinct rows of a batch (sorted by RowGradients). Density 100: a stream.
void BM_SortedRows(benchmark::State& state, bool write) {
  const auto row_bytes = static_cast<size_t>(state.range(0));
  const auto density = static_cast<uint64_t>(state.range(1));
  const size_t table_bytes = static_cast<size_t>(state.range(2)) * kMiB;
  const int threads = static_cast<int>(state.range(3));
  std::vector<uint32_t> rows;
  for (uint64_t r = 0; r < table_bytes / row_bytes; ++r) {
    if (Mix64(r) % 100 < density) rows.push_back(static_cast<uint32_t>(r));
  }
  const auto count = static_cast<int64_t>(rows.size());
  float* table = Table().data();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        VisitRows(table, row_bytes, count, threads, write, /*prefetch=*/true,
                  [&](int64_t i) { return size_t{rows[static_cast<size_t>(i)]}; }));
  }
  SetBytes(state, count, row_bytes, write);
}

// Densities: a batch's share of the input rows (about 10%), of the output rows at 3,351 of
// 670,091 active (about 70%), and a stream (a rebuild).
void SortedArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"row_bytes", "density", "table_mib", "threads"});
  for (int64_t bytes : {256, 512})
    for (int64_t density : {10, 70, 100})
      for (int64_t mib : {16, 4096})
        for (int64_t threads : {1, 2}) b->Args({bytes, density, mib, threads});
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}
BENCHMARK_CAPTURE(BM_SortedRows, read, false)->Apply(SortedArgs);
BENCHMARK_CAPTURE(BM_SortedRows, update, true)->Apply(SortedArgs);

}  // namespace
}  // namespace sparsebench

BENCHMARK_MAIN();
