#include <fmt/format.h>
#include <omp.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/featurizer.h"
#include "datasets/metrics.h"
#include "datasets/reader.h"
#include "engine/api/engine_error.h"
#include "engine/api/engine_family.h"
#include "engine/model/model_io.h"
#include "harness/cli/commands.h"
#include "harness/cli/engines.h"
#include "harness/measure/external/protocol.h"
#include "harness/measure/measure.h"
#include "harness/measure/stopwatch.h"
#include "harness/record/cell_json.h"
#include "harness/run/matrix.h"

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

// The cell's peak memory: this process's own peak or, where larger, that of the whole tree
// measured together (an external engine's: this process and the engine's), plus the files
// the learner staged in memory (tmpfs), which no process's resident size counts.
double CellPeakMemoryMb(const std::map<std::string, std::string>& context) {
  const auto cell = context.find("cell_peak_memory_mb");
  const double together = cell == context.end() ? 0.0 : std::stod(cell->second);
  return std::max(PeakRssMb(), together) + StagedMemoryMb(context);
}

// Reads both files (not on the training clock). Test text is featurized here for engines that
// do not read text; training text is featurized on the clock, by the learner factory.
std::pair<Dataset, Dataset> LoadData(const TrainArgs& args, const std::optional<Featurizer>& featurizer) {
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
  if (featurizer && test.has_text()) FeaturizeDataset(test, *featurizer, args.options.threads);
  return {std::move(train), std::move(test)};
}

std::string DatasetName(const std::string& path) {
  const std::filesystem::path p(path);
  return p.parent_path().filename().string();
}

// Engines that read raw text featurize it themselves (their settings travel with the model);
// the others get the shared featurizer's hashed n-grams.
std::optional<Featurizer> SharedFeaturizer(const TrainArgs& args, const EngineRegistry& engines) {
  if (engines.ReadsText(args.engine)) return std::nullopt;
  FeaturizerOptions f;
  f.buckets = args.buckets;
  return Featurizer(f);
}

void RunTrain(const TrainArgs& args, const EngineRegistry& engines) {
  omp_set_num_threads(args.options.threads);  // parallel regions that name no count use the run's
  // Before hours of training, not after: the model is then written through a temporary
  // file and a rename (SaveModel), so a failure leaves any old model whole.
  if (!args.save.empty()) CheckModelDestination(args.save);
  const std::optional<Featurizer> featurizer = SharedFeaturizer(args, engines);
  Stopwatch load;
  load.Start();
  auto [train, test] = LoadData(args, featurizer);
  const double load_seconds = load.Stop();
  MeasureSettings settings = args.measure;
  settings.threads = args.options.threads;
  if (settings.min_improvement > 0 && settings.patience == 0)
    throw ConfigError(
        "--min-improvement is part of the plateau rule: give --holdout and --patience too");
  if ((settings.patience > 0) != (settings.holdout > 0))
    throw ConfigError(
        "--holdout and --patience make the plateau rule together: give both or neither");
  if (args.eval_each_epoch) {
    settings.evals_per_epoch = 1;
    settings.eval_sample = UINT32_MAX;
  }
  const LearnerFactory make = [&](const DataShape& shape) {
    return engines.MakeLearner(args.engine, shape, args.options);
  };
  Measurement measured = TrainAndMeasure(make, train, test, settings, featurizer ? &*featurizer : nullptr);
  const Learner& learner = *measured.learner;
  CellResult& r = measured.result;
  r.spec = learner.spec();  // after training: data-dependent choices resolved
  r.dataset = DatasetName(args.train);
  r.threads = args.options.threads;
  r.seed = args.options.seed;
  r.load_seconds = load_seconds;
  if (!args.save.empty()) learner.Save(args.save);
  measured.learner->Finish();
  r.context = learner.context();
  r.peak_rss_mb = CellPeakMemoryMb(r.context);
  r.status = CellStatus::kOk;
  WriteChildLine(r, stdout);
}

// A result line saying why the cell failed: the runner's row then has the child's status.
void FailedLine(CellStatus status, const std::string& reason, const std::string& spec) {
  CellResult r = FailedCell(status, reason);
  r.spec = spec;
  WriteChildLine(r, stdout);
}

}  // namespace

void AddTrainCommand(CLI::App& app, NumberOptions& numbers, const EngineRegistry& engines) {
  auto args = std::make_shared<TrainArgs>();
  TrainOptions& o = args->options;
  MeasureSettings& m = args->measure;
  CLI::App* cmd = app.add_subcommand("train", "Train one engine, evaluate on the whole test set, print a JSON line");
  cmd->add_option("--engine", args->engine, "Engine spec, e.g. sparse:hidden=128,out_sparsity=0.005")
      ->required();
  cmd->add_option("--train", args->train, "Training file")->required();
  cmd->add_option("--test", args->test, "Test file")->required();
  cmd->add_option("--format", args->format, "xmc, libsvm, csv or fasttext (default: by extension)")
      ->check(CLI::IsMember(FormatNames()));
  numbers.Add<uint32_t>(
      *cmd, "--epochs", [&o](uint32_t v) { o.epochs = v; }, {1, kMaxEpochs},
      "Passes over the training data (default: the engine's; the text engine chooses its own)");
  numbers.Add<uint32_t>(
      *cmd, "--batch", [&o](uint32_t v) { o.batch = v; }, {1, kMaxBatch},
      "Mini-batch size (default: the engine's)");
  numbers.Add<double>(
      *cmd, "--lr", [&o](double v) { o.lr = v; }, {kMinLr, kMaxLr},
      "Learning rate (default: the engine's)");
  numbers.Add<uint64_t>(
      *cmd, "--lr-half-life", [&o](uint64_t v) { o.lr_half_life = v; }, {0, kMaxLrHalfLife},
      "Samples at full lr, then lr halves every this many more (0: constant; default 500000)");
  numbers.Add(*cmd, "--threads", o.threads, {1, kMaxThreads}, "Threads");
  numbers.Add(*cmd, "--seed", o.seed, {0, UINT64_MAX}, "Seed");
  numbers.Add(*cmd, "--buckets", args->buckets, {1, kMaxBuckets},
              "Hash buckets when featurizing text");
  cmd->add_option("--save", args->save, "Write the trained model here");
  cmd->add_flag("--eval-each-epoch", args->eval_each_epoch,
                "Evaluate on the whole test set after every epoch (time not counted)");
  numbers.Add(
      *cmd, "--evals-per-epoch", m.evals_per_epoch, {0, kMaxEvalsPerEpoch},
      "Time-to-accuracy curve points per epoch on a held-out test sample (time not counted)");
  numbers.Add(*cmd, "--eval-sample", m.eval_sample, {1, UINT32_MAX},
              "Test rows in each curve point");
  numbers.Add(*cmd, "--eval-every-seconds", m.eval_every_seconds, {0, kMaxSeconds},
              "A curve point only when this many training seconds have passed since the last "
              "(0: at every pause); epoch ends and the budget's stop always make one");
  numbers.Add(*cmd, "--train-budget-seconds", m.train_budget_seconds, {0, kMaxSeconds},
              "Stop training at the first pause at or after this many training seconds, then "
              "evaluate as usual (0: no budget)");
  numbers.Add(*cmd, "--holdout", m.holdout, {0, 0.5},
              "The plateau rule's share of the training rows held out (seeded, off the clock; "
              "with --patience)");
  numbers.Add(*cmd, "--min-improvement", m.min_improvement, {0, 0.5},
              "The plateau rule: a new best on the --holdout rows must beat the old by more than "
              "this (metric units, e.g. 0.003 for 0.3 points; default 0)");
  numbers.Add(*cmd, "--patience", m.patience, {0, kMaxEpochs},
              "Stop once this many epochs pass without a new best metric on the --holdout rows, "
              "scored at each epoch's end off the clock (0: no plateau rule)");
  cmd->add_option("--metric", m.metric, "Curve and target metric")
      ->check(CLI::IsMember({"p_at_1", "p_at_3", "p_at_5", "accuracy"}))
      ->capture_default_str();
  numbers.Add<double>(
      *cmd, "--target", [&m](double v) { m.target = v; }, {0, 1},
      "Time to target: first curve point with metric >= this");
  numbers.Add(*cmd, "--recall-sample", m.recall_sample, {0, UINT32_MAX},
              "Training rows whose active sets are probed at each pause (sparse engines; 0: none)");
  numbers.Add(*cmd, "--latency-samples", m.latency_samples, {0, UINT32_MAX},
              "Single-row predictions to time (0: none)");
  cmd->callback([args, &engines] {
    try {
      RunTrain(*args, engines);
    } catch (const EngineFault& fault) {
      // The row's status says which misbehaviour; stderr gets the reason as for any error.
      FailedLine(fault.status(), fault.what(), args->engine);
      throw;
    } catch (const std::bad_alloc&) {
      FailedLine(CellStatus::kOom, "out of memory (std::bad_alloc)", args->engine);
      throw;
    }
  });
}

}  // namespace sparsebench::cli
