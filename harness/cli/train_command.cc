#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "datasets/data_error.h"
#include "datasets/featurizer.h"
#include "datasets/reader.h"
#include "engine/metrics.h"
#include "harness/cli/commands.h"
#include "harness/learner_factory.h"

namespace sparsebench::cli {
namespace {

struct TrainArgs {
  std::string engine;
  std::string train, test, format, save;
  uint32_t epochs = 1;
  TrainOptions options;
  uint32_t buckets = FeaturizerOptions{}.buckets;
  bool eval_each_epoch = false;
};

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::pair<Dataset, Dataset> LoadData(const TrainArgs& args) {
  const Format format = args.format.empty() ? GuessFormat(args.train) : ParseFormat(args.format);
  ReadOptions options;
  options.threads = args.options.threads;
  Dataset train = ReadDataset(args.train, format, options);
  options.num_features = train.num_features;
  options.num_labels = train.num_labels;
  options.label_names = format == Format::kFastText ? train.label_names : std::vector<std::string>{};
  Dataset test = ReadDataset(args.test, format, options);
  if (test.num_features > train.num_features || test.num_labels > train.num_labels) {
    throw DataError(args.test, 1,
                    fmt::format("test data has {} features and {} labels, more than the training "
                                "data's {} and {}",
                                test.num_features, test.num_labels, train.num_features, train.num_labels));
  }
  if (IsTextFormat(format)) {
    FeaturizerOptions f;
    f.buckets = args.buckets;
    Featurizer featurizer(f);
    FeaturizeDataset(train, featurizer, args.options.threads);
    FeaturizeDataset(test, featurizer, args.options.threads);
  }
  return {std::move(train), std::move(test)};
}

std::string DatasetName(const std::string& path) {
  const std::filesystem::path p(path);
  return p.parent_path().filename().string();
}

void RunTrain(const TrainArgs& args) {
  auto [train, test] = LoadData(args);
  auto learner = MakeLearner(args.engine, {train.num_features, train.num_labels}, args.options);
  double train_seconds = 0;
  uint64_t samples = 0;
  for (uint32_t epoch = 1; epoch <= args.epochs; ++epoch) {
    EpochReport report = learner->TrainEpoch(train, {});
    train_seconds += report.seconds;
    samples += report.samples;
    std::string details;
    for (auto& [key, value] : report.details) details += fmt::format(" {}={:.3f}", key, value);
    fmt::print(stderr, "epoch {}/{}: {:.2f} s, loss {:.4f}{}\n", epoch, args.epochs, report.seconds,
               report.mean_loss, details);
    if (args.eval_each_epoch && epoch < args.epochs) {
      const auto start = std::chrono::steady_clock::now();
      const Metrics m = ComputeMetrics(learner->Predict(test, 5), test);
      fmt::print(stderr, "epoch {}/{}: p_at_1 {:.4f} p_at_5 {:.4f} (evaluated in {:.1f} s, not counted)\n",
                 epoch, args.epochs, m.p_at_1, m.p_at_5, SecondsSince(start));
    }
  }
  const auto eval_start = std::chrono::steady_clock::now();
  const Metrics metrics = ComputeMetrics(learner->Predict(test, 5), test);
  const double eval_seconds = SecondsSince(eval_start);
  if (!args.save.empty()) learner->Save(args.save);
  nlohmann::json line = {
      {"engine", learner->spec()},
      {"dataset", DatasetName(args.train)},
      {"threads", args.options.threads},
      {"epochs", args.epochs},
      {"train_seconds", train_seconds},
      {"eval_seconds", eval_seconds},
      {"samples_per_second", train_seconds > 0 ? static_cast<double>(samples) / train_seconds : 0.0},
      {"p_at_1", metrics.p_at_1},
      {"p_at_3", metrics.p_at_3},
      {"p_at_5", metrics.p_at_5},
      {"accuracy", metrics.accuracy ? nlohmann::json(*metrics.accuracy) : nlohmann::json(nullptr)},
      {"peak_rss_mb", PeakRssMb()},
      {"model_bytes", learner->model_bytes()},
      {"status", "ok"}};
  fmt::print("{}\n", line.dump());
}

}  // namespace

void AddTrainCommand(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train one engine, evaluate on the whole test set, print a JSON line");
  cmd->add_option("--engine", args->engine, "Engine spec, e.g. sparse:hidden=128,out_sparsity=0.005")
      ->required();
  cmd->add_option("--train", args->train, "Training file")->required();
  cmd->add_option("--test", args->test, "Test file")->required();
  cmd->add_option("--format", args->format, "xmc, libsvm, csv or fasttext (default: by extension)")
      ->check(CLI::IsMember({"xmc", "libsvm", "csv", "fasttext"}));
  cmd->add_option("--epochs", args->epochs, "Passes over the training data")->capture_default_str()->check(CLI::Range(1u, 10000u));
  cmd->add_option("--batch", args->options.batch, "Mini-batch size")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--lr", args->options.lr, "Adam learning rate")->capture_default_str()->check(CLI::Range(1e-7, 10.0));
  cmd->add_option("--threads", args->options.threads, "Threads")->capture_default_str()->check(CLI::Range(1, 1024));
  cmd->add_option("--seed", args->options.seed, "Seed")->capture_default_str();
  cmd->add_option("--buckets", args->buckets, "Hash buckets when featurizing text")->capture_default_str()->check(CLI::Range(1u, 1u << 30));
  cmd->add_option("--save", args->save, "Write the trained model here");
  cmd->add_flag("--eval-each-epoch", args->eval_each_epoch,
                "Also evaluate on the whole test set after every epoch (time not counted)");
  cmd->callback([args] { RunTrain(*args); });
}

}  // namespace sparsebench::cli
