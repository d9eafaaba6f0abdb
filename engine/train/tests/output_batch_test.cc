// The row-by-row batch pass of a sparse output layer against the sample-by-sample pass
// (ForwardBackward, then RowGradients' Adam), and the same bits on every thread count.
#include "engine/train/output_batch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/api/tests/test_util.h"
#include "engine/train/sample_pass.h"

namespace sparsebench {
namespace {

constexpr uint32_t kFeatures = 40, kHidden = 16, kOutputs = 300, kActive = 25, kBatch = 12;

struct Batch {
  std::vector<std::vector<uint32_t>> active;  // per slot, labels first; empty: skipped
  std::vector<float> hidden;                  // kBatch x kHidden
  std::vector<uint32_t> labels;               // per slot
};

Network MakeNetwork(bool bf16) {
  Network net({kFeatures, kHidden, kOutputs}, 5, Storage{bf16, bf16});
  Rng rng(6);
  for (float& b : net.output.bias) b = static_cast<float>(rng.Uniform() * 0.2 - 0.1);
  for (float& w : net.input.w) w *= 20.0f;  // sizeable activations, so ReLU matters
  return net;
}

Batch MakeBatch(const Network& net, const Dataset& data) {
  Batch b;
  b.hidden.resize(size_t{kBatch} * kHidden);
  Rng rng(9);
  for (uint32_t slot = 0; slot < kBatch; ++slot) {
    const SparseRow row = data.row(slot);
    net.Hidden(row.features, row.values, b.hidden.data() + size_t{slot} * kHidden);
    std::vector<uint32_t> active(row.labels.begin(), row.labels.end());
    while (active.size() < kActive) {
      const uint32_t id = rng.Below(kOutputs);
      if (std::find(active.begin(), active.end(), id) == active.end()) active.push_back(id);
    }
    if (slot == 4) active.clear();  // a sample the trainer skips (no labels)
    b.labels.push_back(active.empty() ? 0 : static_cast<uint32_t>(row.labels.size()));
    b.active.push_back(std::move(active));
  }
  return b;
}

struct Result {
  Parameters output;
  std::vector<float> hidden_grad, losses;
};

Result SampleBySample(const Network& net, const Dataset& data, const Batch& b) {
  Result r{net.output, std::vector<float>(size_t{kBatch} * kHidden, 0.0f),
           std::vector<float>(kBatch, 0.0f)};
  std::vector<Contribution> contributions;
  std::vector<float> grads;
  for (uint32_t slot = 0; slot < kBatch; ++slot) {
    if (b.active[slot].empty()) continue;
    r.losses[slot] = ForwardBackward(net, data.row(slot), b.active[slot], /*labels_first=*/true,
                                     b.hidden.data() + size_t{slot} * kHidden,
                                     r.hidden_grad.data() + size_t{slot} * kHidden, grads);
    for (size_t a = 0; a < grads.size(); ++a)
      contributions.push_back({b.active[slot][a], slot, grads[a]});
  }
  RowGradients rows(kOutputs);
  const std::vector<const std::vector<Contribution>*> lists{&contributions};
  rows.Group(lists);
  rows.ApplyAdam(r.output, b.hidden.data(), /*row_bias=*/true, AdamStep(AdamConfig{}, 1), 1);
  return r;
}

Result RowByRow(const Network& net, const Batch& b, int threads) {
  Result r{net.output, std::vector<float>(size_t{kBatch} * kHidden, 0.0f),
           std::vector<float>(kBatch, 0.0f)};
  OutputBatch batch(kOutputs, static_cast<uint32_t>(threads));
  // As the trainer hands them over: one list per part, contributions in sample order.
  std::vector<std::vector<Contribution>> lists(batch.parts());
  std::vector<uint32_t> active_counts;
  for (uint32_t slot = 0; slot < kBatch; ++slot) {
    const std::vector<uint32_t>& active = b.active[slot];
    for (size_t a = 0; a < active.size(); ++a)
      lists[batch.PartOf(active[a])].push_back({active[a], slot, static_cast<float>(a)});
    active_counts.push_back(static_cast<uint32_t>(active.size()));
  }
  std::vector<const std::vector<Contribution>*> pointers;
  for (const auto& list : lists) pointers.push_back(&list);
  batch.Forward(pointers, active_counts, b.labels, net.output, b.hidden.data(), threads,
                r.losses.data());
  batch.Backward(r.output, b.hidden.data(), AdamStep(AdamConfig{}, 1), threads,
                 r.hidden_grad.data());
  return r;
}

std::vector<float> Weights(const Parameters& p) {
  if (!p.bf16_weights()) return std::vector<float>(p.w.begin(), p.w.end());
  std::vector<float> w(p.w16.size());
  WidenBf16(p.w16.data(), p.w16.size(), w.data());
  return w;
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected, float tol,
                const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_NEAR(actual[i], expected[i], tol * std::max(1.0f, std::abs(expected[i])))
        << what << " [" << i << "]";
  }
}

class OutputBatchTest : public ::testing::TestWithParam<bool> {};

TEST_P(OutputBatchTest, MatchesTheSampleBySamplePass) {
  const Network net = MakeNetwork(GetParam());
  const Dataset data = testing::RandomDataset(kBatch, kFeatures, kOutputs, 8);
  const Batch b = MakeBatch(net, data);
  const Result want = SampleBySample(net, data, b);
  const Result got = RowByRow(net, b, 2);
  ExpectNear(got.losses, want.losses, 1e-5f, "loss");
  ExpectNear(got.hidden_grad, want.hidden_grad, 1e-5f, "hidden gradient");
  ExpectNear(std::vector<float>(got.output.bias.begin(), got.output.bias.end()),
             std::vector<float>(want.output.bias.begin(), want.output.bias.end()), 1e-6f, "bias");
  // bf16 weights round stochastically: a row's noise is the same in both, so the weights
  // agree to a bf16 step at most.
  ExpectNear(Weights(got.output), Weights(want.output), GetParam() ? 1.5e-3f : 1e-6f, "weights");
  EXPECT_GT(*std::max_element(got.losses.begin(), got.losses.end()), 0.0f);
  EXPECT_EQ(got.losses[4], 0.0f);
}

TEST_P(OutputBatchTest, EveryThreadCountGivesTheSameBits) {
  const Network net = MakeNetwork(GetParam());
  const Dataset data = testing::RandomDataset(kBatch, kFeatures, kOutputs, 8);
  const Batch b = MakeBatch(net, data);
  const Result one = RowByRow(net, b, 1);
  for (int threads : {2, 3}) {
    const Result many = RowByRow(net, b, threads);
    EXPECT_EQ(many.losses, one.losses) << threads << " threads";
    EXPECT_EQ(many.hidden_grad, one.hidden_grad) << threads << " threads";
    EXPECT_EQ(Weights(many.output), Weights(one.output)) << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Fp32AndBf16, OutputBatchTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "bf16" : "fp32"; });

}  // namespace
}  // namespace sparsebench
