#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "datasets/featurizer.h"
#include "datasets/reader.h"
#include "datasets/stats.h"
#include "datasets/synthetic.h"
#include "harness/cli/commands.h"
#include "harness/run/matrix.h"

namespace sparsebench::cli {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct GenArgs {
  SynthOptions synth;
  std::string out;
};

void RunGen(const GenArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  SynthSummary s = GenerateSynthetic(args.synth, args.out);
  const double seconds = SecondsSince(start);
  fmt::print("wrote {} ({} rows) and {} ({} rows), {} {} in {:.1f} s ({:.2f} M/s)\n", s.train_path,
             s.train_rows, s.test_path, s.test_rows, s.nonzeros,
             s.format == "xmc" ? "nonzeros" : "words", seconds, s.nonzeros / seconds / 1e6);
}

struct CheckArgs {
  std::vector<std::string> files;
  std::string format;
  int threads = 1;
  uint32_t buckets = FeaturizerOptions{}.buckets;
};

void RunCheck(const CheckArgs& args) {
  for (const std::string& file : args.files) {
    const Format format = args.format.empty() ? GuessFormat(file) : ParseFormat(args.format);
    const auto start = std::chrono::steady_clock::now();
    ReadOptions options;
    options.threads = args.threads;
    Dataset data = ReadDataset(file, format, options);
    const double read_seconds = SecondsSince(start);
    if (IsTextFormat(format)) {
      FeaturizerOptions featurizer;
      featurizer.buckets = args.buckets;
      FeaturizeDataset(data, Featurizer(featurizer), args.threads);
    }
    fmt::print("{} ({}): valid, read in {:.2f} s\n{}", file, FormatName(format), read_seconds,
               FormatStats(ComputeStats(data)));
  }
}

}  // namespace

void AddDataCommands(CLI::App& app, NumberOptions& numbers) {
  CLI::App* data = app.add_subcommand("data", "Generate, validate and describe datasets");
  data->require_subcommand(1);

  auto gen = std::make_shared<GenArgs>();
  CLI::App* gen_cmd = data->add_subcommand(
      "gen", "Write a deterministic synthetic dataset with a real dataset's statistics");
  gen_cmd->add_option("--preset", gen->synth.preset, "amazon670k, yelp or dbpedia")
      ->required()
      ->check(CLI::IsMember(SyntheticPresets()));
  numbers.Add(*gen_cmd, "--scale", gen->synth.scale, {0, kMaxScale, true},
              "Fraction of the real size (1.0 = real)");
  numbers.Add(*gen_cmd, "--seed", gen->synth.seed, {0, UINT64_MAX},
              "Seed; the same seed writes the same bytes");
  numbers.Add(*gen_cmd, "--threads", gen->synth.threads, {1, kMaxThreads}, "Generator threads");
  SynthOptions& synth = gen->synth;
  numbers.Add<uint32_t>(
      *gen_cmd, "--labels", [&synth](uint32_t v) { synth.labels = v; }, {2, kMaxSynthLabels},
      "amazon670k: number of labels instead of the scaled count (same rows and features)");
  gen_cmd->add_option("--out", gen->out, "Output directory")->required();
  gen_cmd->callback([gen] { RunGen(*gen); });

  auto check = std::make_shared<CheckArgs>();
  CLI::App* check_cmd = data->add_subcommand(
      "check", "Validate files (first error as FILE:LINE: reason, exit 2) and print statistics");
  check_cmd->add_option("files", check->files, "Dataset files")->required();
  check_cmd
      ->add_option("--format", check->format,
                   "xmc, libsvm, csv or fasttext (default: by extension)")
      ->check(CLI::IsMember(FormatNames()));
  numbers.Add(*check_cmd, "--threads", check->threads, {1, kMaxThreads}, "Reader threads");
  numbers.Add(*check_cmd, "--buckets", check->buckets, {1, kMaxBuckets},
              "Hash buckets when featurizing text");
  check_cmd->callback([check] { RunCheck(*check); });
}

}  // namespace sparsebench::cli
