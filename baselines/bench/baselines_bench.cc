// How close the dense baselines come to the machine's dense limit: the blas learner's GEMM
// calls against raw cblas_sgemm on the same shapes in the same run, and LibTorch's mm
// against cblas_sgemm at 2048^3.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <chrono>
#include <vector>

#include "baselines/blas_learner.h"
#include "engine/api/tests/test_util.h"
#include "engine/common/aligned.h"
#ifdef SPARSEBENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace sparsebench {
namespace {

// Amazon-670K at scale 0.1: 13,591 features, 67,009 labels, hidden 128, batch 256.
constexpr uint32_t kFeatures = 13591, kLabels = 67009, kHidden = 128, kBatch = 256;

double RawGemmSeconds(bool ta, bool tb, int m, int n, int k, int repeats) {
  FloatVector a(size_t(m) * k, 0.01f), b(size_t(k) * n, 0.02f), c(size_t(m) * n, 0.0f);
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k,
                1.0f, a.data(), ta ? m : k, b.data(), tb ? k : n, 0.0f, c.data(), n);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void BM_BlasLearnerGemmEfficiency(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const uint32_t batches = 8;
  const Dataset data = testing::RandomDataset(kBatch * batches, kFeatures, kLabels, 3);
  TrainOptions options;
  options.batch = kBatch;
  options.threads = threads;
  BlasLearner learner("blas:hidden=128", {kFeatures, kLabels}, options);
  double learner_seconds = 0, learner_flops = 0, raw_seconds = 0;
  for (auto _ : state) {
    const BlasLearner::GemmTotals before = learner.gemm_totals();
    learner.Train(data, {});
    learner_seconds += learner.gemm_totals().seconds - before.seconds;
    learner_flops += learner.gemm_totals().flops - before.flops;
    openblas_set_num_threads(threads);
    raw_seconds += RawGemmSeconds(false, true, kBatch, kLabels, kHidden, batches);
    raw_seconds += RawGemmSeconds(true, false, kLabels, kHidden, kBatch, batches);
    raw_seconds += RawGemmSeconds(false, false, kBatch, kHidden, kLabels, batches);
  }
  const double learner_gflops = learner_flops / learner_seconds / 1e9;
  const double raw_gflops = learner_flops / raw_seconds / 1e9;  // the same products, raw
  state.counters["learner_gflops"] = learner_gflops;
  state.counters["raw_gflops"] = raw_gflops;
  state.counters["efficiency"] = learner_gflops / raw_gflops;
}
BENCHMARK(BM_BlasLearnerGemmEfficiency)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_RawSgemm2048(benchmark::State& state) {
  openblas_set_num_threads(static_cast<int>(state.range(0)));
  const int n = 2048;
  double seconds = 0;
  for (auto _ : state) seconds += RawGemmSeconds(false, false, n, n, n, 1);
  state.counters["gflops"] = 2.0 * n * n * n * static_cast<double>(state.iterations()) / seconds / 1e9;
}
BENCHMARK(BM_RawSgemm2048)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(5);

#ifdef SPARSEBENCH_HAVE_TORCH
void BM_TorchMm2048(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  torch::set_num_threads(threads);
  openblas_set_num_threads(threads);
  const int64_t n = 2048;
  const torch::Tensor a = torch::full({n, n}, 0.01f), b = torch::full({n, n}, 0.02f);
  for (auto _ : state) benchmark::DoNotOptimize(torch::mm(a, b));
  state.counters["gflops"] = benchmark::Counter(2.0 * n * n * n * static_cast<double>(state.iterations()) / 1e9,
                                                benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TorchMm2048)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
#endif

}  // namespace
}  // namespace sparsebench

BENCHMARK_MAIN();
