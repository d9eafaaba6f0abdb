// Grouping a batch's gradients by row, checked against a plain per-row sum in sample order,
// for every thread count.
#include "engine/train/row_gradients.h"

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <vector>

#include "datasets/random.h"

namespace sparsebench {
namespace {

constexpr uint32_t kBatch = 16;

struct Case {
  uint32_t per_sample;  // contributions a sample
  uint32_t rows, dim;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.per_sample << " a sample over " << c.rows << " rows of " << c.dim;
}

// Three per-thread lists over a few hot rows and many cold ones, some rows never touched.
std::vector<std::vector<Contribution>> MakeLists(const Case& c) {
  Rng rng(7);
  std::vector<std::vector<Contribution>> lists(3);
  for (uint32_t slot = 0; slot < kBatch; ++slot) {
    auto& list = lists[slot * lists.size() / kBatch];
    for (uint32_t a = 0; a < c.per_sample; ++a) {
      const uint32_t row = a % 4 == 0 ? rng.Below(5) : rng.Below(c.rows);
      list.push_back({row, slot, static_cast<float>(rng.Uniform()) - 0.5f});
    }
  }
  return lists;
}

Parameters Trained(const std::vector<std::vector<Contribution>>& lists, const Case& c, int threads,
                   size_t& unique) {
  const uint32_t kRows = c.rows, kDim = c.dim;
  Parameters params(kRows, kDim, kRows);
  params.Initialize(3, kDim, kRows);
  std::vector<float> vectors(kBatch * kDim);
  Rng rng(11);
  for (float& x : vectors) x = static_cast<float>(rng.Uniform());
  RowGradients grads(kRows, static_cast<uint32_t>(threads));
  // Each list split by part, as the trainer's threads hand them over.
  std::vector<std::vector<Contribution>> split(lists.size() * grads.parts());
  for (size_t l = 0; l < lists.size(); ++l) {
    for (const Contribution& c : lists[l])
      split[l * grads.parts() + grads.PartOf(c.row)].push_back(c);
  }
  std::vector<const std::vector<Contribution>*> pointers;
  for (const auto& list : split) pointers.push_back(&list);
  for (uint64_t step = 1; step <= 3; ++step) {  // the same grads object reused across batches
    grads.Group(pointers);
    grads.ApplyAdam(params, vectors.data(), /*row_bias=*/true, AdamStep(AdamConfig{}, step),
                    threads);
  }
  unique = grads.unique_rows();
  return params;
}

// The reference: each row's gradient summed contribution by contribution in list order.
Parameters Reference(const std::vector<std::vector<Contribution>>& lists, const Case& c,
                     size_t& unique) {
  const uint32_t kRows = c.rows, kDim = c.dim;
  Parameters params(kRows, kDim, kRows);
  params.Initialize(3, kDim, kRows);
  std::vector<float> vectors(kBatch * kDim);
  Rng rng(11);
  for (float& x : vectors) x = static_cast<float>(rng.Uniform());
  for (uint64_t step = 1; step <= 3; ++step) {
    std::vector<float> grad(size_t{kRows} * kDim, 0.0f), bias(kRows, 0.0f);
    std::vector<bool> touched(kRows, false);
    for (const auto& list : lists) {
      for (const Contribution& c : list) {
        for (uint32_t j = 0; j < kDim; ++j)
          grad[size_t{c.row} * kDim + j] += c.coeff * vectors[c.slot * kDim + j];
        bias[c.row] += c.coeff;
        touched[c.row] = true;
      }
    }
    const AdamStep adam(AdamConfig{}, step);
    unique = 0;
    for (uint32_t r = 0; r < kRows; ++r) {
      if (!touched[r]) continue;
      ++unique;
      const size_t at = size_t{r} * kDim;
      adam.Apply(grad.data() + at, params.w.data() + at, params.m.data() + at, params.v.data() + at,
                 kDim);
      adam.Apply(&bias[r], &params.bias[r], &params.bias_m[r], &params.bias_v[r], 1);
    }
  }
  return params;
}

class RowGradientsTest : public ::testing::TestWithParam<Case> {};

TEST_P(RowGradientsTest, EveryThreadCountMatchesThePlainSumBitForBit) {
  const Case& c = GetParam();
  const auto lists = MakeLists(c);
  size_t expected_unique = 0;
  const Parameters expected = Reference(lists, c, expected_unique);
  size_t one_unique = 0;
  const Parameters one = Trained(lists, c, 1, one_unique);
  for (int threads : {1, 2, 3, 7, 13}) {
    size_t unique = 0;
    const Parameters got = Trained(lists, c, threads, unique);
    EXPECT_EQ(unique, expected_unique) << threads << " threads";
    for (size_t i = 0; i < got.w.size(); ++i) {
      ASSERT_NEAR(got.w[i], expected.w[i], 1e-6f)
          << "weight " << i << ", " << threads << " threads";
    }
    for (size_t r = 0; r < c.rows; ++r)
      ASSERT_NEAR(got.bias[r], expected.bias[r], 1e-6f) << "bias " << r;
    EXPECT_EQ(got.w, one.w) << threads << " threads differ from one thread";
  }
}

// A dense batch (every slot contributes to every row, some coefficients zero) applied by
// ApplyDenseAdam is what listing every contribution and grouping it gives, bit for bit, in
// every storage and for every thread count; a row count that is not a multiple of its blocks.
TEST(DenseAdam, MatchesGroupingEveryContribution) {
  const uint32_t rows = 1'003, dim = 24, slots = 13;
  Rng rng(5);
  std::vector<float> coeffs(size_t{slots} * rows), vectors(size_t{slots} * dim);
  for (float& x : coeffs) x = rng.Below(5) == 0 ? 0.0f : static_cast<float>(rng.Uniform()) - 0.5f;
  for (float& x : vectors) x = static_cast<float>(rng.Uniform());
  std::vector<Contribution> list;
  for (uint32_t slot = 0; slot < slots; ++slot) {
    for (uint32_t r = 0; r < rows; ++r) list.push_back({r, slot, coeffs[size_t{slot} * rows + r]});
  }
  for (const bool bf16 : {false, true}) {
    for (const int threads : {1, 2, 3}) {
      Parameters grouped(rows, dim, rows, {bf16, bf16}), dense(rows, dim, rows, {bf16, bf16});
      grouped.Initialize(3, dim, rows);
      dense.Initialize(3, dim, rows);
      RowGradients grads(rows);
      const std::vector<const std::vector<Contribution>*> lists = {&list};
      for (uint64_t step = 1; step <= 3; ++step) {
        const AdamStep adam(AdamConfig{}, step);
        grads.Group(lists);
        grads.ApplyAdam(grouped, vectors.data(), /*row_bias=*/true, adam, threads);
        ApplyDenseAdam(dense, coeffs.data(), slots, vectors.data(), adam, threads);
      }
      EXPECT_EQ(dense.w, grouped.w) << bf16 << " " << threads;
      EXPECT_EQ(dense.w16, grouped.w16) << bf16 << " " << threads;
      EXPECT_EQ(dense.m16, grouped.m16) << bf16 << " " << threads;
      EXPECT_EQ(dense.bias, grouped.bias) << bf16 << " " << threads;
    }
  }
}

// Few and many contributions a row; ranges of rows sorted in one radix pass (1,000 rows), two
// (100,000) and, on one thread, three (over 2^22 rows).
INSTANTIATE_TEST_SUITE_P(FewAndMany, RowGradientsTest,
                         ::testing::Values(Case{2, 1000, 8}, Case{200, 1000, 8},
                                           Case{200, 100'000, 8}, Case{200, (1u << 22) + 5, 1}));

}  // namespace
}  // namespace sparsebench

namespace sparsebench {
namespace {

// Steps far below a bf16 step at the weight's size (2^-8 at 1.0) still add up: the stochastic
// rounding is unbiased, where rounding to nearest would never move the weight.
TEST(AdamBf16Weights, StepsBelowOneBf16StepAddUpOnAverage) {
  constexpr size_t kWeights = 512;
  constexpr int kSteps = 400;
  const AdamConfig config{.lr = 1e-4f};
  std::vector<float> grad(kWeights, 1.0f), w32(kWeights, 1.0f), m32(kWeights, 0.0f),
      v32(kWeights, 0.0f);
  std::vector<uint16_t> w16(kWeights, ToBf16(1.0f)), m16(kWeights, 0), v16(kWeights, 0);
  for (int t = 1; t <= kSteps; ++t) {
    const AdamStep step(config, static_cast<uint64_t>(t));
    step.Apply(grad.data(), w32.data(), m32.data(), v32.data(), kWeights);
    step.Apply(grad.data(), w16.data(), m16.data(), v16.data(), kWeights, step.noise_seed);
  }
  double mean = 0;
  for (uint16_t w : w16) mean += FromBf16(w) / kWeights;
  const double moved32 = 1.0 - w32[0], moved16 = 1.0 - mean;
  EXPECT_NEAR(moved32, kSteps * 1e-4, 0.1 * kSteps * 1e-4);
  EXPECT_NEAR(moved16, moved32, 0.1 * moved32);
  EXPECT_GT(std::set<uint16_t>(w16.begin(), w16.end()).size(), 1u)
      << "every weight rounded the same way";
}

}  // namespace
}  // namespace sparsebench
