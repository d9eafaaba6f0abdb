// Loader, featurizer and generator speed. Run: build/release/datasets/bench/datasets_bench
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "datasets/featurizer.h"
#include "datasets/reader.h"
#include "datasets/synthetic.h"

namespace sparsebench {
namespace {

// Generated once per process, removed at exit.
class BenchData {
 public:
  static const BenchData& Get() {
    static BenchData data;
    return data;
  }
  ~BenchData() { std::filesystem::remove_all(dir_); }
  std::string xmc_train() const { return dir_ + "/xmc/train.txt"; }
  std::string yelp_train() const { return dir_ + "/yelp/train.csv"; }

 private:
  BenchData() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sbbench-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
    GenerateSynthetic({"amazon670k", 0.1, 1, 2}, dir_ + "/xmc");
    GenerateSynthetic({"yelp", 0.02, 1, 2}, dir_ + "/yelp");
  }
  std::string dir_;
};

// Peak resident memory since the last reset, from /proc (Linux); 0 elsewhere.
int64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      int64_t kb;
      status >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

void BM_ReadXmc(benchmark::State& state) {
  const std::string path = BenchData::Get().xmc_train();
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(path));
  ReadOptions options;
  options.threads = static_cast<int>(state.range(0));
  double peak_over_csr = 0;
  for (auto _ : state) {
    ResetPeakRss();
    const int64_t before = PeakRssBytes();
    Dataset d = ReadDataset(path, Format::kXmc, options);
    peak_over_csr = static_cast<double>(PeakRssBytes() - before) / static_cast<double>(d.csr_bytes());
    benchmark::DoNotOptimize(d.values.data());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["peak_rss_over_csr"] = peak_over_csr;
}
BENCHMARK(BM_ReadXmc)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Featurize(benchmark::State& state) {
  Dataset text = ReadDataset(BenchData::Get().yelp_train(), Format::kCsv);
  Featurizer featurizer(FeaturizerOptions{});
  for (auto _ : state) {
    state.PauseTiming();
    Dataset d = text;
    state.ResumeTiming();
    FeaturizeDataset(d, featurizer, static_cast<int>(state.range(0)));
    benchmark::DoNotOptimize(d.feature_ids.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.text.chars.size()));
}
BENCHMARK(BM_Featurize)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The featurizer alone, one row at a time (no CSR assembly).
void BM_FeaturizeRows(benchmark::State& state) {
  Dataset text = ReadDataset(BenchData::Get().yelp_train(), Format::kCsv);
  Featurizer featurizer(FeaturizerOptions{});
  FeatureVector row;
  std::vector<uint32_t> scratch;
  for (auto _ : state) {
    for (size_t r = 0; r < text.rows(); ++r) featurizer.Featurize(text.text.at(r), row, scratch);
    benchmark::DoNotOptimize(row.ids.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.text.chars.size()));
}
BENCHMARK(BM_FeaturizeRows)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GenerateAmazon(benchmark::State& state) {
  std::string pattern = (std::filesystem::temp_directory_path() / "sbgen-XXXXXX").string();
  const std::string dir = ::mkdtemp(pattern.data());
  uint64_t nonzeros = 0;
  for (auto _ : state) {
    nonzeros += GenerateSynthetic({"amazon670k", 0.02, 1, static_cast<int>(state.range(0))}, dir).nonzeros;
  }
  std::filesystem::remove_all(dir);
  state.counters["nonzeros_per_second"] =
      benchmark::Counter(static_cast<double>(nonzeros), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GenerateAmazon)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace sparsebench

BENCHMARK_MAIN();
