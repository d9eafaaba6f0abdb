// Engine kernels. Run: build/release/engine/bench/engine_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>

#include "datasets/random.h"
#include "engine/common/aligned.h"
#include "engine/lsh/hash_family.h"
#include "engine/lsh/lsh_config.h"
#include "engine/lsh/neuron_selector.h"
#include "engine/model/network.h"
#include "engine/train/output_batch.h"
#include "engine/train/row_gradients.h"
#include "engine/train/sample_pass.h"

namespace sparsebench {
namespace {

std::vector<float> RandomVector(uint32_t dim, uint64_t seed, bool relu) {
  Rng rng(seed);
  std::vector<float> v(dim);
  for (float& x : v) x = static_cast<float>(rng.Uniform() - (relu ? 0.4 : 0.5));
  if (relu) {
    for (float& x : v) x = std::max(x, 0.0f);
  }
  return v;
}

// Hashing one 128-d vector into all L = 50 tables.
void BM_Hash(benchmark::State& state, const std::string& family, uint32_t k) {
  HashParams p;
  p.family = family;
  p.k = k;
  p.tables = 50;
  auto hash = MakeHashFamily(p);
  HashScratch scratch;
  std::vector<uint32_t> codes(p.tables);
  const std::vector<float> x = RandomVector(p.dim, 1, true);
  for (auto _ : state) {
    hash->Hash(x, codes, scratch);
    benchmark::DoNotOptimize(codes.data());
  }
}
BENCHMARK_CAPTURE(BM_Hash, dwta, std::string("dwta"), 6u);
BENCHMARK_CAPTURE(BM_Hash, srp, std::string("srp"), 12u);
BENCHMARK_CAPTURE(BM_Hash, fastsrp, std::string("fastsrp"), 12u);

// The SLIDE output layer at scale 0.1: 67,009 neurons of dimension 128.
struct OutputLayer {
  static constexpr uint32_t kInputs = 13'591, kHidden = 128, kOutputs = 67'009;
  Network net{{kInputs, kHidden, kOutputs}, 7};
};

const OutputLayer& Layer() {
  static const OutputLayer layer;
  return layer;
}

// The tables ResolveLsh picks for a layer of `outputs` neurons, 0.5% of them active.
SelectorParams Resolved(uint32_t outputs) {
  SelectorParams p;
  p.top_frequency = true;
  p.lsh_share = 0.5;  // the engine's default share
  p.probes = SelectorParams::kAutoProbes;
  p.capacity = 0;  // auto, as the engine resolves it
  ResolveLsh(p, outputs, (outputs + 199) / 200);
  return p;
}

// Hash a hidden vector, probe its buckets, keep the most frequent neurons and fill up to 336
// (0.5%) with random ones: one sample's selection.
void BM_QueryTables(benchmark::State& state) {
  const Network& net = Layer().net;
  const SelectorParams p = Resolved(OutputLayer::kOutputs);
  auto selector = MakeNeuronSelector(p, OutputLayer::kOutputs);
  selector->Rebuild(net.output.w.data(), OutputLayer::kOutputs, OutputLayer::kHidden, 2);
  SelectorScratch scratch;
  Rng rng(3);
  std::vector<uint32_t> active;
  const std::vector<float> h = RandomVector(OutputLayer::kHidden, 2, true);
  const std::vector<uint32_t> labels = {5, 70, 900};
  size_t total = 0;
  for (auto _ : state) {
    selector->Select(h, labels, 336, scratch, rng, active);
    total += active.size();
  }
  state.counters["active"] = static_cast<double>(total) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_QueryTables);

// Rebuilding the tables from the 67,009 weight rows.
void BM_RebuildTables(benchmark::State& state) {
  const Network& net = Layer().net;
  const SelectorParams p = Resolved(OutputLayer::kOutputs);
  auto selector = MakeNeuronSelector(p, OutputLayer::kOutputs);
  for (auto _ : state) {
    selector->Rebuild(net.output.w.data(), OutputLayer::kOutputs, OutputLayer::kHidden,
                      static_cast<int>(state.range(0)));
  }
}
BENCHMARK(BM_RebuildTables)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// A network whose output layer keeps its weights and moments in bf16.
Network WithBf16Output(Network net) {
  net.output.UseBf16Moments();
  net.output.UseBf16Weights();
  return net;
}

// The article's output layer: 670,091 rows of 128, bf16 as the engine trains it.
const Network& WideBf16Layer() {
  static const Network net = WithBf16Output(Network({16, OutputLayer::kHidden, 670'091}, 7));
  return net;
}

// Hashing the article's output layer into the tables ResolveLsh picks for it, and building
// them: one rebuild.
void BM_RebuildWide(benchmark::State& state) {
  const Network& net = WideBf16Layer();
  const SelectorParams p = Resolved(670'091);
  auto selector = MakeNeuronSelector(p, 670'091);
  for (auto _ : state) selector->RebuildFrom(net.output, 2);
  state.SetLabel(selector->Describe());
}
BENCHMARK(BM_RebuildWide)->Unit(benchmark::kMillisecond)->UseRealTime();

// One sample's selection at the article's width, from the tables ResolveLsh picks for
// `active` of the 670,091 neurons (336: the width sweep's count; 3,351: the article's share).
// The queries change every time, so their buckets come from memory as they do in training.
void BM_QueryTablesWide(benchmark::State& state) {
  const auto target = static_cast<uint32_t>(state.range(0));
  SelectorParams p;
  p.top_frequency = true;
  p.lsh_share = 0.5;
  p.probes = SelectorParams::kAutoProbes;
  p.capacity = 0;
  ResolveLsh(p, 670'091, target);
  auto selector = MakeNeuronSelector(p, 670'091);
  selector->RebuildFrom(WideBf16Layer().output, 2);
  std::vector<std::vector<float>> queries;
  for (uint64_t q = 0; q < 4096; ++q)
    queries.push_back(RandomVector(OutputLayer::kHidden, 100 + q, true));
  SelectorScratch scratch;
  Rng rng(3);
  std::vector<uint32_t> active;
  const std::vector<uint32_t> labels = {5, 70, 900};
  size_t q = 0;
  for (auto _ : state) {
    selector->Select(queries[q++ % queries.size()], labels, target, scratch, rng, active);
    benchmark::DoNotOptimize(active.data());
  }
  state.SetLabel(selector->Describe());
}
BENCHMARK(BM_QueryTablesWide)->Arg(336)->Arg(3351)->Unit(benchmark::kMicrosecond);

// Forward and backward of one sample (76 features, 336 active outputs) through
// 13,591 -> 128 -> 67,009.
void BM_ForwardBackward(benchmark::State& state) {
  const Network& net = Layer().net;
  Rng rng(4);
  std::vector<uint32_t> features(76), active(336);
  for (auto& f : features) f = rng.Below(OutputLayer::kInputs);
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  const std::vector<float> values(features.size(), 0.11f);
  for (auto& a : active) a = rng.Below(OutputLayer::kOutputs);
  const std::vector<uint32_t> labels(active.begin(), active.begin() + 5);
  const SparseRow row{features, values, labels};
  FloatVector hidden(OutputLayer::kHidden), hidden_grad(OutputLayer::kHidden);
  std::vector<float> grads;
  for (auto _ : state) {
    net.Hidden(row.features, row.values, hidden.data());
    benchmark::DoNotOptimize(ForwardBackward(net, row, active, true, hidden.data(), hidden_grad.data(), grads));
  }
}
BENCHMARK(BM_ForwardBackward);

// The same at the article's width: 670,091 outputs, 3,351 active (random rows); second
// argument 1: bf16 output weights. 336 active: the width sweep's count. This per-sample pass
// is what a dense output layer and inference use; a sparse layer trains through OutputBatch
// (BM_OutputBatch).
void BM_ForwardBackwardWide(benchmark::State& state) {
  static const Network fp32({16, OutputLayer::kHidden, 670'091}, 7);
  static const Network bf16 = WithBf16Output(fp32);
  const Network& net = state.range(1) ? bf16 : fp32;
  Rng rng(4);
  const std::vector<uint32_t> features = {1, 5, 9};
  const std::vector<float> values(features.size(), 0.5f);
  std::vector<uint32_t> active(static_cast<size_t>(state.range(0)));
  FloatVector hidden(OutputLayer::kHidden), hidden_grad(OutputLayer::kHidden);
  std::vector<float> grads;
  uint64_t round = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (auto& a : active) a = rng.Below(670'091);
    const std::vector<uint32_t> labels(active.begin(), active.begin() + 5);
    const SparseRow row{features, values, labels};
    net.Hidden(row.features, row.values, hidden.data());
    ++round;
    state.ResumeTiming();
    benchmark::DoNotOptimize(ForwardBackward(net, row, active, true, hidden.data(), hidden_grad.data(), grads));
  }
}
BENCHMARK(BM_ForwardBackwardWide)
    ->Args({3351, 0})
    ->Args({3351, 1})
    ->Args({336, 1})
    ->Unit(benchmark::kMicrosecond);

// Grouping one batch's output-layer gradients by row and the sparse Adam step for `batch`
// samples with `active` random neurons each, on `threads` threads.
void AdamBatch(benchmark::State& state, Network& net, uint32_t batch, uint32_t active, uint32_t threads) {
  const uint32_t outputs = net.shape.output_dim;
  Rng rng(5);
  std::vector<Contribution> contributions;
  for (uint32_t s = 0; s < batch; ++s) {
    for (uint32_t a = 0; a < active; ++a) contributions.push_back({rng.Below(outputs), s, 0.01f});
  }
  const std::vector<float> vectors = RandomVector(batch * OutputLayer::kHidden, 6, true);
  RowGradients grads(outputs, threads);
  std::vector<std::vector<Contribution>> parts(threads);
  for (const Contribution& c : contributions) parts[grads.PartOf(c.row)].push_back(c);
  std::vector<const std::vector<Contribution>*> lists;
  for (const auto& part : parts) lists.push_back(&part);
  uint64_t step = 0;
  for (auto _ : state) {
    grads.Group(lists);
    grads.ApplyAdam(net.output, vectors.data(), true, AdamStep(AdamConfig{}, ++step), static_cast<int>(threads));
  }
  state.counters["unique_rows"] = static_cast<double>(grads.unique_rows());
  state.counters["samples_per_second"] =
      benchmark::Counter(static_cast<double>(batch) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

// 256 samples x 336 active neurons of 67,009; arguments: batch, threads, bf16 output weights.
void BM_AdamBatch(benchmark::State& state) {
  static Network fp32({16, OutputLayer::kHidden, OutputLayer::kOutputs}, 9);
  static Network bf16 = WithBf16Output(fp32);
  AdamBatch(state, state.range(2) ? bf16 : fp32, static_cast<uint32_t>(state.range(0)), 336,
            static_cast<uint32_t>(state.range(1)));
}
BENCHMARK(BM_AdamBatch)
    ->Args({256, 1, 0})
    ->Args({256, 2, 0})
    ->Args({1024, 2, 0})
    ->Args({256, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The article's width as the engine trains it: 670,091 outputs, bf16 weights and moments,
// 2 threads; argument: active neurons a sample (3,351: the article's share; 336: the width
// sweep's fixed count, whose rows lie scattered).
void BM_AdamBatchWide(benchmark::State& state) {
  static Network net = WithBf16Output(Network({16, OutputLayer::kHidden, 670'091}, 9));
  AdamBatch(state, net, 256, static_cast<uint32_t>(state.range(0)), 2);
}
BENCHMARK(BM_AdamBatchWide)->Arg(3351)->Arg(336)->Unit(benchmark::kMillisecond)->UseRealTime();

// The sparse output layer's pass over one batch as the engine trains it (OutputBatch: grouping
// by row, scoring, softmax, backward fused with Adam): 256 samples with `active` (first
// argument) distinct random rows each of `outputs` (second), 5 labels each, bf16 weights and
// moments, on `threads` (third argument). 670,091 x 3,351: the article's width and share; 336
// of 670,091 and of 67,009: the width sweep's fixed count, where only the layer's size differs.
void BM_OutputBatch(benchmark::State& state) {
  const auto active = static_cast<uint32_t>(state.range(0));
  const auto outputs = static_cast<uint32_t>(state.range(1));
  const auto threads = static_cast<int>(state.range(2));
  Network net = WithBf16Output(Network({16, OutputLayer::kHidden, outputs}, 9));
  constexpr uint32_t kBatch = 256;
  OutputBatch pass(outputs, static_cast<uint32_t>(threads));
  std::vector<std::vector<Contribution>> parts(static_cast<size_t>(threads));
  Rng rng(5);
  std::vector<uint32_t> ids;
  std::vector<bool> taken(outputs);
  for (uint32_t s = 0; s < kBatch; ++s) {
    for (uint32_t id : ids) taken[id] = false;
    ids.clear();
    while (ids.size() < active) {
      const uint32_t id = rng.Below(outputs);
      if (!taken[id]) taken[id] = true, ids.push_back(id);
    }
    for (uint32_t a = 0; a < active; ++a)
      parts[pass.PartOf(ids[a])].push_back({ids[a], s, static_cast<float>(a)});
  }
  std::vector<const std::vector<Contribution>*> lists;
  for (const auto& part : parts) lists.push_back(&part);
  const std::vector<uint32_t> active_counts(kBatch, active), label_counts(kBatch, 5);
  const std::vector<float> hidden = RandomVector(kBatch * OutputLayer::kHidden, 6, true);
  std::vector<float> hidden_grad(hidden.size()), losses(kBatch);
  uint64_t step = 0;
  for (auto _ : state) {
    pass.Forward(lists, active_counts, label_counts, net.output, hidden.data(), threads,
                 losses.data());
    pass.Backward(net.output, hidden.data(), AdamStep(AdamConfig{}, ++step), threads,
                  hidden_grad.data());
  }
  state.counters["unique_rows"] = static_cast<double>(pass.unique_rows());
  state.counters["samples_per_second"] =
      benchmark::Counter(static_cast<double>(kBatch) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_OutputBatch)
    ->ArgNames({"active", "outputs", "threads"})
    ->Args({3351, 670'091, 2})
    ->Args({3351, 670'091, 1})
    ->Args({336, 670'091, 2})
    ->Args({336, 67'009, 2})
    ->Args({336, 67'009, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace sparsebench

BENCHMARK_MAIN();
