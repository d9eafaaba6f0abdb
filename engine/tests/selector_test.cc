#include "engine/neuron_selector.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/network.h"

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

INSTANTIATE_TEST_SUITE_P(Families, Selectors, ::testing::Values("dwta", "srp", "fastsrp", "random"));

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

}  // namespace
}  // namespace sparsebench
