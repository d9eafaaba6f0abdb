#include <fmt/format.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "datasets/data_error.h"
#include "datasets/featurizer.h"
#include "datasets/reader.h"
#include "engine/metrics.h"
#include "engine/model_io.h"
#include "engine/spec.h"
#include "harness/cli/commands.h"
#include "harness/learner_factory.h"
#include "harness/measure.h"

namespace sparsebench::cli {
namespace {

struct TrainArgs {
  std::string engine;
  std::string train, test, format, save;
  TrainOptions options;
  MeasureSettings measure;
  uint32_t buckets = FeaturizerOptions{}.buckets;
  bool eval_each_epoch = false;
};

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
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
  // The text engine featurizes itself (its settings travel with the model); the others
  // get the shared featurizer's hashed n-grams.
  if (IsTextFormat(format) && Spec::Parse(args.engine).family() != "text") {
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
  // Before hours of training, not after: the model is then written through a temporary
  // file and a rename (SaveModel), so a failure leaves any old model whole.
  if (!args.save.empty()) CheckModelDestination(args.save);
  auto [train, test] = LoadData(args);
  auto learner = MakeLearner(args.engine, {train.num_features, train.num_labels}, args.options);
  MeasureSettings settings = args.measure;
  settings.batch = args.options.batch;
  if (args.eval_each_epoch) {
    settings.evals_per_epoch = 1;
    settings.eval_sample = UINT32_MAX;
  }
  const nlohmann::json measured = TrainAndMeasure(*learner, train, test, settings);
  nlohmann::json line = {{"engine", learner->spec()},  // after training: data-dependent choices resolved
                         {"dataset", DatasetName(args.train)},
                         {"threads", args.options.threads},
                         {"epochs", learner->runs_own_epochs() ? nlohmann::json(nullptr) : nlohmann::json(settings.epochs)}};
  line.update(measured);
  if (!args.save.empty()) learner->Save(args.save);
  line["peak_rss_mb"] = PeakRssMb();
  line["context"] = learner->context();
  line["status"] = "ok";
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
  cmd->add_option("--epochs", args->measure.epochs,
                  "Passes over the training data (the text engine chooses its own unless this is given)")
      ->each([args](const std::string& text) { args->options.passes = static_cast<uint32_t>(std::strtoul(text.c_str(), nullptr, 10)); })->capture_default_str()->check(CLI::Range(1u, 10000u));
  cmd->add_option("--batch", args->options.batch, "Mini-batch size")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--lr", args->options.lr, "Adam learning rate")->capture_default_str()->check(CLI::Range(1e-7, 10.0))
      ->each([args](const std::string&) { args->options.lr_from_user = true; });
  cmd->add_option("--threads", args->options.threads, "Threads")->capture_default_str()->check(CLI::Range(1, 1024));
  cmd->add_option("--seed", args->options.seed, "Seed")->capture_default_str();
  cmd->add_option("--buckets", args->buckets, "Hash buckets when featurizing text")->capture_default_str()->check(CLI::Range(1u, 1u << 30));
  cmd->add_option("--save", args->save, "Write the trained model here");
  cmd->add_flag("--eval-each-epoch", args->eval_each_epoch,
                "Evaluate on the whole test set after every epoch (time not counted)");
  cmd->add_option("--evals-per-epoch", args->measure.evals_per_epoch,
                  "Time-to-accuracy curve points per epoch on a held-out test sample (time not counted)")
      ->capture_default_str();
  cmd->add_option("--eval-sample", args->measure.eval_sample, "Test rows in each curve point")->capture_default_str();
  cmd->add_option("--metric", args->measure.metric, "Curve and target metric")
      ->check(CLI::IsMember({"p_at_1", "p_at_3", "p_at_5", "accuracy"}))->capture_default_str();
  cmd->add_option("--target", args->measure.target, "Time to target: first curve point with metric >= this");
  cmd->add_option("--latency-samples", args->measure.latency_samples, "Single-row predictions to time (0: none)")
      ->capture_default_str();
  cmd->callback([args] { RunTrain(*args); });
}

}  // namespace sparsebench::cli
