#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "datasets/metrics.h"
#include "engine/lsh/lsh_config.h"
#include "engine/lsh/lsh_tables.h"
#include "engine/lsh/neuron_selector.h"
#include "engine/model/network.h"

namespace sparsebench {
namespace {

class Selectors : public ::testing::TestWithParam<std::string> {};

// Label forcing: whatever the tables return, the active set holds every true label, has no
// duplicates and is capped at the target (unless the labels alone exceed it).
TEST_P(Selectors, ActiveSetHoldsLabelsAndRespectsTheCap) {
  const uint32_t rows = 2000, dim = 32;
  Network net({10, dim, rows}, 3);
  SelectorParams params;
  params.kind = GetParam() == "random" ? "random" : "lsh";
  params.hash.family = GetParam() == "random" ? "dwta" : GetParam();
  params.hash.dim = dim;
  params.hash.k = GetParam() == "dwta" ? 3 : 8;
  params.hash.tables = 20;
  params.capacity = 16;
  auto selector = MakeNeuronSelector(params, rows);
  selector->Rebuild(net.output.w.data(), rows, dim, 2);
  SelectorScratch scratch;
  Rng rng(1);
  std::vector<uint32_t> active;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> input(dim);
    for (float& x : input) x = std::max(0.0f, static_cast<float>(rng.Uniform() - 0.4));
    std::vector<uint32_t> labels = {rng.Below(rows), rng.Below(rows)};
    if (labels[0] == labels[1]) labels.pop_back();
    const uint32_t target = trial % 2 ? 40 : 1;
    selector->Select(input, labels, target, scratch, rng, active);
    for (size_t i = 0; i < labels.size(); ++i) EXPECT_EQ(active[i], labels[i]);
    EXPECT_LE(active.size(), std::max<size_t>(target, labels.size()));
    std::vector<uint32_t> sorted = active;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    for (uint32_t id : active) EXPECT_LT(id, rows);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, Selectors,
                         ::testing::Values("dwta", "srp", "fastsrp", "random"));

TEST(Selectors, TopFrequencyAndPaddingFillTheTarget) {
  const uint32_t rows = 500, dim = 16;
  Network net({4, dim, rows}, 9);
  SelectorParams params;
  params.hash.dim = dim;
  params.hash.k = 1;  // wide buckets: many candidates
  params.hash.tables = 8;
  params.top_frequency = true;
  params.pad_random = true;
  auto selector = MakeNeuronSelector(params, rows);
  selector->Rebuild(net.output.w.data(), rows, dim, 1);
  SelectorScratch scratch;
  Rng rng(4);
  std::vector<uint32_t> active;
  std::vector<float> input(dim, 0.5f);
  const std::vector<uint32_t> labels = {7};
  selector->Select(input, labels, 30, scratch, rng, active);
  EXPECT_EQ(active.size(), 30u);
  EXPECT_EQ(active[0], 7u);
}

// The tables' memory is the model's: made with the selector, as the weights are with the
// network, not by its first build inside the first epoch.
TEST(Selectors, TableMemoryComesWithTheSelector) {
  const uint32_t rows = 3000, dim = 16;
  SelectorParams params;
  params.hash.dim = dim;
  params.hash.k = 3;
  params.hash.tables = 12;
  auto selector = MakeNeuronSelector(params, rows);
  const size_t codes_and_ids = 2 * size_t{params.hash.tables} * rows * sizeof(uint32_t);
  EXPECT_GE(selector->bytes(), codes_and_ids);
  Network net({4, dim, rows}, 5);
  selector->Rebuild(net.output.w.data(), rows, dim, 1);
  EXPECT_LT(selector->bytes() - codes_and_ids, codes_and_ids / 2);  // the bucket offsets
}

// A query reads its buckets nearest first (every table's own bucket before any runner-up)
// and stops once they hold `reads` neurons; with no limit it reads every probed bucket.
TEST(Selectors, QueriesReadOwnBucketsFirstAndStopAtTheReadLimit) {
  const uint32_t rows = 4000, dim = 32, tables = 8, probes = 2, capacity = 1000;
  Network net({4, dim, rows}, 12);
  SelectorParams params;
  params.hash.dim = dim;
  params.hash.k = 2;  // 64 buckets a table: about 62 neurons each
  params.hash.tables = tables;
  params.capacity = capacity;
  params.probes = probes;
  const auto family = MakeHashFamily(params.hash);
  std::vector<uint32_t> codes(size_t{rows} * tables);
  HashScratch hash_scratch;
  family->HashRows(net.output.w.data(), rows, dim, codes.data(), rows, hash_scratch);
  SelectorScratch scratch;
  Rng rng(3);
  std::vector<uint32_t> active, query_codes(tables * (probes + 1));
  for (const uint32_t reads : {0u, 150u}) {
    params.reads = reads;
    auto selector = MakeNeuronSelector(params, rows);
    selector->Rebuild(net.output.w.data(), rows, dim, 1);
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> input(dim);
      for (float& x : input) x = std::max(0.0f, static_cast<float>(rng.Uniform() - 0.4));
      family->HashProbes(input, probes, query_codes, hash_scratch);
      selector->Select(input, {}, rows, scratch, rng, active);
      size_t in_own = 0, in_any = 0;
      for (uint32_t id : active) {
        bool own = false, any = false;
        for (uint32_t t = 0; t < tables; ++t) {
          for (uint32_t p = 0; p <= probes; ++p) {
            const bool match = codes[size_t{t} * rows + id] == query_codes[t * (probes + 1) + p];
            own |= match && p == 0;
            any |= match;
          }
        }
        in_own += own;
        in_any += any;
      }
      EXPECT_EQ(in_any, active.size());
      if (reads == 0) {
        EXPECT_LT(in_own, active.size());  // the runners-up were read too
      } else {
        EXPECT_EQ(in_own, active.size());  // 150 neurons are about 2.5 of the 8 own buckets
        EXPECT_GT(active.size(), 0u);
        EXPECT_LT(active.size(), reads + rows / 16);  // the last bucket read is not cut
      }
    }
  }
}

// Random neurons come in runs of consecutive ids (wrapping past the last row) from uniform
// starts: each id as likely as any other, and a layer narrower than a run still filled
// without duplicates.
TEST(Selectors, RandomRunsAreConsecutiveAndEveryIdEquallyLikely) {
  const uint32_t run = 8;
  SelectorParams params;
  params.kind = "random";
  params.random_run = run;
  SelectorScratch scratch;
  Rng rng(5);
  std::vector<uint32_t> active;
  // Wide: runs practically never meet, so the set is whole runs (the last one cut short).
  const uint32_t wide = 1000000;
  auto selector = MakeNeuronSelector(params, wide);
  for (int trial = 0; trial < 200; ++trial) {
    selector->Select({}, {}, 3 * run + 3, scratch, rng, active);
    ASSERT_EQ(active.size(), 3 * run + 3);
    for (size_t i = 1; i < active.size(); ++i) {
      if (i % run != 0) {
        EXPECT_EQ(active[i], (active[i - 1] + 1) % wide) << "at " << i;
      }
    }
  }
  // Narrow, with a forced id: every other id equally likely.
  const uint32_t rows = 100, target = 21, forced = 50;
  selector = MakeNeuronSelector(params, rows);
  std::vector<double> hits(rows, 0);
  const int trials = 20000;
  for (int trial = 0; trial < trials; ++trial) {
    selector->Select({}, std::vector<uint32_t>{forced}, target, scratch, rng, active);
    ASSERT_EQ(active.size(), target);
    for (size_t i = 1; i < active.size(); ++i) ++hits[active[i]];
  }
  const double expected = trials * (target - 1.0) / (rows - 1);
  for (uint32_t id = 0; id < rows; ++id) {
    if (id != forced) {
      EXPECT_NEAR(hits[id], expected, 6 * std::sqrt(expected)) << "id " << id;
    }
  }
  EXPECT_EQ(hits[forced], 0);
  // Narrower than a run.
  selector = MakeNeuronSelector(params, 5);
  selector->Select({}, {}, 5, scratch, rng, active);
  std::sort(active.begin(), active.end());
  EXPECT_EQ(active, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
}

// The per-neuron counts behind top-frequency selection: first sightings listed once in
// order, counts that stop at kMaxCount instead of wrapping (a query can probe more buckets),
// moved out in order (zeroing them) or cleared for the next selection.
TEST(SelectorScratch, CountsSightingsOnceListedAndSaturating) {
  SelectorScratch scratch;
  std::vector<uint32_t> active;
  scratch.BeginWith(1000, {}, active);
  scratch.ClearCounts();
  const std::vector<uint32_t> often(300, 999), mixed = {4, 999, 4};
  const std::vector<std::span<const uint32_t>> buckets = {often, mixed};
  scratch.CountAll(buckets);
  EXPECT_EQ(scratch.found, (std::vector<uint32_t>{999, 4}));
  EXPECT_EQ(scratch.CountOf(999), SelectorScratch::kMaxCount);
  EXPECT_EQ(scratch.CountOf(4), 2u);
  EXPECT_EQ(scratch.CountOf(5), 0u);
  EXPECT_TRUE(scratch.Uncount(4));
  EXPECT_FALSE(scratch.Uncount(4));
  EXPECT_EQ(scratch.found, (std::vector<uint32_t>{999, 4}));
  scratch.MoveCounts();
  EXPECT_EQ(scratch.found_count, (std::vector<uint8_t>{SelectorScratch::kMaxCount, 0}));
  EXPECT_EQ(scratch.CountOf(999), 0u);
  scratch.ClearCounts();
  scratch.CountAll(buckets);
  EXPECT_EQ(scratch.found, (std::vector<uint32_t>{999, 4}));
  EXPECT_EQ(scratch.CountOf(4), 2u);
  scratch.ClearCounts();
  EXPECT_TRUE(scratch.found.empty());
  EXPECT_EQ(scratch.CountOf(999), 0u);
  EXPECT_EQ(scratch.CountOf(4), 0u);
}

// Top-frequency choice against a plain one: the found neurons ordered by count, most first,
// ties in the order found, the first `need` of those counted at least once. Few and many
// candidates, ties at the cut, saturated counts, need 0 and need beyond what was found.
TEST(SelectorScratch, TakesTheMostFrequentFirstFoundOnTies) {
  Rng rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    const uint32_t rows = 5000;
    const size_t found = rng.Below(trial % 2 ? 40 : 3000) + (trial == 0 ? 0 : 1);
    const uint32_t most = trial % 3 == 0 ? 255 : 1 + rng.Below(12);
    SelectorScratch scratch;
    std::vector<uint32_t> active;
    scratch.BeginWith(rows, {}, active);
    std::vector<uint32_t> ids(rows);
    for (uint32_t i = 0; i < rows; ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), std::mt19937(trial));
    scratch.found.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(found));
    scratch.found_count.resize(found);
    for (uint8_t& c : scratch.found_count) c = static_cast<uint8_t>(rng.Below(most + 1));
    const size_t need = trial == 1 ? 0 : rng.Below(static_cast<uint32_t>(found) + 20);

    std::vector<size_t> order(found);
    for (size_t i = 0; i < found; ++i) order[i] = i;
    const std::vector<uint8_t> counts = scratch.found_count;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return counts[a] > counts[b]; });
    std::vector<bool> chosen(rows);
    for (size_t taken = 0; size_t i : order) {
      if (taken == need || counts[i] == 0) break;
      chosen[scratch.found[i]] = true;
      ++taken;
    }
    std::vector<uint32_t> expected;  // the chosen neurons in the order they were found
    for (uint32_t id : scratch.found) {
      if (chosen[id]) expected.push_back(id);
    }

    scratch.TakeMostFrequent(need, active);
    ASSERT_EQ(active, expected) << "trial " << trial << ", need " << need;
    for (uint32_t id : active) EXPECT_TRUE(scratch.Has(id));
    EXPECT_TRUE(scratch.found.empty());
  }
}

// The tables against a plain grouping of rows by code: every bucket holds exactly the rows
// whose codes land there, ascending, and a bucket over capacity answers with that many of
// them. Codes as wide as the range, and wider ones folded into it; 1 and 2 build threads.
TEST(LshTables, BucketsHoldTheirRowsAscendingUpToCapacity) {
  const uint32_t rows = 20'000, tables = 3;
  for (const auto& [code_bits, range_bits] : {std::pair{10u, 10u}, std::pair{16u, 9u}}) {
    for (int threads : {1, 2}) {
      Rng rng(code_bits * 10 + threads);
      std::vector<uint32_t> codes(size_t{rows} * tables);
      for (uint32_t& c : codes) c = rng.Below(1u << code_bits);
      LshTables uncapped, capped;
      uncapped.Build(codes, rows, tables, code_bits, range_bits, rows, 1, threads);
      capped.Build(codes, rows, tables, code_bits, range_bits, 4, 1, threads);
      for (uint32_t t = 0; t < tables; ++t) {
        size_t listed = 0;
        for (uint32_t r = 0; r < rows; ++r) {
          const uint32_t code = codes[size_t{t} * rows + r];
          std::span<const uint32_t> bucket = uncapped.Bucket(t, code);
          ASSERT_TRUE(std::is_sorted(bucket.begin(), bucket.end()));
          ASSERT_TRUE(std::binary_search(bucket.begin(), bucket.end(), r));
          for (uint32_t id : bucket)
            ASSERT_EQ(uncapped.Bucket(t, codes[size_t{t} * rows + id]).data(), bucket.data());
          std::span<const uint32_t> few = capped.Bucket(t, code);
          ASSERT_EQ(few.size(), std::min<size_t>(bucket.size(), 4));
          for (uint32_t id : few) ASSERT_TRUE(std::binary_search(bucket.begin(), bucket.end(), id));
          if (bucket.front() == r) listed += bucket.size();
        }
        EXPECT_EQ(listed, rows);  // counting each bucket once, at its first row, covers every row
      }
    }
  }
}

// Tables built from bf16 weight rows are the tables of the same values in fp32.
TEST(Selectors, Bf16RowsIndexLikeTheirFp32Values) {
  const uint32_t rows = 3000, dim = 32;
  Network net({4, dim, rows}, 5);
  net.output.UseBf16Moments();
  net.output.UseBf16Weights();
  Parameters fp32 = net.output;
  fp32.UseFp32Weights();
  SelectorParams params;
  params.hash.dim = dim;
  params.hash.k = 3;
  params.hash.tables = 12;
  params.capacity = 32;
  auto from_bf16 = MakeNeuronSelector(params, rows);
  auto from_fp32 = MakeNeuronSelector(params, rows);
  from_bf16->RebuildFrom(net.output, 2);
  from_fp32->RebuildFrom(fp32, 2);
  SelectorScratch scratch;
  Rng rng_a(6), rng_b(6), inputs(8);
  std::vector<uint32_t> a, b;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> input(dim);
    for (float& x : input) x = std::max(0.0f, static_cast<float>(inputs.Uniform() - 0.4));
    from_bf16->Select(input, {}, 60, scratch, rng_a, a);
    from_fp32->Select(input, {}, 60, scratch, rng_b, b);
    EXPECT_EQ(a, b);
  }
}

// A planted layer: Gaussian weight rows, and queries that are ReLU'd noisy copies of known
// rows, so a few neurons score far above the rest. Returns the share of each query's exact
// top 5 (by dot product) that the selector puts in an active set of 0.5% of the layer.
double PlantedRecallAtFive(const std::string& kind, uint32_t outputs) {
  constexpr uint32_t kDim = 64, kQueries = 200;
  Rng rng(21);
  std::vector<float> weights(size_t{outputs} * kDim);
  for (float& w : weights) w = static_cast<float>(rng.Uniform() - 0.5);
  const uint32_t active_target = (outputs + 199) / 200;
  SelectorParams p;
  p.kind = kind;
  p.hash.dim = kDim;
  p.top_frequency = true;
  p.lsh_share = 0.5;
  p.probes = SelectorParams::kAutoProbes;
  if (kind == "lsh") ResolveLsh(p, outputs, active_target);
  auto selector = MakeNeuronSelector(p, outputs);
  selector->Rebuild(weights.data(), outputs, kDim, 2);
  SelectorScratch scratch;
  std::vector<uint32_t> active;
  std::vector<float> query(kDim), scores(outputs);
  uint32_t top[5];
  float best[5];
  double found = 0;
  for (uint32_t q = 0; q < kQueries; ++q) {
    const float* planted = weights.data() + size_t{rng.Below(outputs)} * kDim;
    for (uint32_t c = 0; c < kDim; ++c)
      query[c] = std::max(0.0f, planted[c] + static_cast<float>(0.3 * (rng.Uniform() - 0.5)));
    for (uint32_t o = 0; o < outputs; ++o) {
      float dot = 0;
      for (uint32_t c = 0; c < kDim; ++c) dot += query[c] * weights[size_t{o} * kDim + c];
      scores[o] = dot;
    }
    SelectTopK(scores, {}, 5, top, best);
    selector->Select(query, {}, active_target, scratch, rng, active);
    for (uint32_t id : top) found += std::find(active.begin(), active.end(), id) != active.end();
  }
  return found / (5.0 * kQueries);
}

// The tables find the neurons that matter far more often than sampling at random does, at a
// narrow and at a wide layer (random finds about 0.5%: the active share).
TEST(Selectors, TablesFindThePlantedTopFiveFarMoreOftenThanRandomSampling) {
  for (const uint32_t outputs : {2'000u, 200'000u}) {
    const double lsh = PlantedRecallAtFive("lsh", outputs),
                 random = PlantedRecallAtFive("random", outputs);
    RecordProperty("recall_lsh_" + std::to_string(outputs), std::to_string(lsh));
    RecordProperty("recall_random_" + std::to_string(outputs), std::to_string(random));
    EXPECT_GT(lsh, 10 * random + 0.05)
        << outputs << " outputs: lsh " << lsh << ", random " << random;
    EXPECT_LT(random, 0.05) << outputs;
  }
}

}  // namespace
}  // namespace sparsebench
