#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "baselines/fasttext_format.h"
#include "baselines/fasttext_staging.h"
#include "engine/api/learner.h"

namespace sparsebench {

class FastTextModel;

// fastText's supervised mode in-process, through Debian's libfasttext (0.9.2). Stage (off the
// clock) writes the training rows in fastText's text format, in a seeded shuffled order, to a
// temporary directory (under /dev/shm when there is one): "__label__<id> <normalized text>"
// for text data, feature tokens for XMC data. Train (on the clock) is FastText::train on that
// file: dictionary building and fastText's epochs, nothing written to disk. Its training
// callback gives the harness its pauses (curve points) through a barrier that parks every
// training thread first. Predict and PredictOne run fastText's own predict over all labels
// in-process; our metrics code scores the top k.
//
// Spec keys (fasttext:key=value,...):
//   dim=10  ngrams=2 (-wordNgrams)  mincount=1  bucket=10000000  epoch=5
//   lr=0.1      fastText's own rate; the published recipe uses 0.1 for Yelp, 0.5 for DBPedia
//   loss=auto   softmax when every row has one label, else ova; or softmax, ova, hs, ns
//   neg=5       negatives per example for loss=ns (fastText's -neg)
//   values=drop XMC only: drop = each feature once; repeat = a feature repeated
//               round(value / smallest positive value in its row) times, at most 10
//   autotune=0  fastText's autotune search (its AutotuneStrategy, scored on a seeded 10%
//               held-out slice) for the given seconds, or `auto`: 12 times its first trial
//               and on until 5 trials have finished (at most 4 times as long), a trial
//               slower than 4 first trials stopped; then the
//               final training on all rows with the chosen arguments, both on the
//               clock (context: autotune_budget, autotune_finished_trials); dim, ngrams,
//               bucket, epoch and lr are tuned unless the spec gives them
//   threads=0   fastText's -thread; 0 = the run's --threads
// spec() names every setting (with autotune, only the given tunable ones); loss is resolved
// once staged, and values is left out for text data. TrainOptions: seed becomes -seed (mod
// 2^31) and the shuffle's seed; lr and batch are ignored (fastText has its own lr, no batch).
class FastTextLearner : public Learner {
 public:
  FastTextLearner(const std::string& spec, const DataShape& shape, const TrainOptions& options);
  ~FastTextLearner() override;
  // ConfigError when the constructor would refuse this spec (parses it, builds nothing).
  static void CheckSpec(const std::string& spec) { ParseConfig(spec); }
  FastTextLearner(const FastTextLearner&) = delete;
  FastTextLearner& operator=(const FastTextLearner&) = delete;

  std::string spec() const override;
  TrainSettings settings() const override;
  void Stage(const Dataset& train) override;
  // Stages the data itself (on the clock) when Stage was not called.
  void Train(const Dataset& train, const PausePlan& plan) override;
  TopK Predict(const Dataset& data, uint32_t k) const override;
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override;
  // fastText's own .bin model (loadable by `fasttext predict` and FastText::loadModel).
  void Save(const std::string& path) const override;
  // The weights (input and output matrices, 4 bytes a float) and the dictionary's words:
  // about the size of the saved .bin, computed without writing it.
  size_t model_bytes() const override;
  std::map<std::string, std::string> context() const override;

 private:
  struct Config {
    std::optional<int64_t> dim, ngrams, bucket, epoch;  // unset: default, or tuned
    std::optional<double> lr;
    int64_t mincount = 1;
    std::string loss = "auto";
    int64_t neg = 5;
    bool repeat_values = false;
    // The search's seconds, or its length in first trials (autotune=auto); both 0: off.
    double autotune_seconds = 0, autotune_first_trials = 0;
    bool autotune() const { return autotune_seconds > 0 || autotune_first_trials > 0; }
    int64_t threads = 0;  // 0: the run's --threads; 1 makes fastText deterministic
  };
  struct Setting {
    std::string key, flag;
    std::optional<std::string> value;  // unset: left to autotune
  };
  static Config ParseConfig(const std::string& spec);

  std::vector<Setting> TunableSettings() const;
  // fastText's command line for training on `input` (argv[0] = "fasttext").
  std::vector<std::string> CommandLine(const std::string& input) const;
  int threads() const;
  void TrainFixed(const PausePlan& plan);
  void TrainAutotuned(const PausePlan& plan);
  void BuildLabelMap();
  FastTextRows RowFormat(bool labels) const;
  void CheckTrained(const Dataset& data) const;
  void PredictRow(const Dataset& data, size_t row, uint32_t k, uint32_t* ids, float* scores) const;

  Config config_;
  TrainOptions options_;
  uint32_t num_labels_;
  std::unique_ptr<FastTextStaged> staged_;
  std::shared_ptr<FastTextModel> model_;  // set once a Train call has succeeded
  std::vector<uint32_t> label_ids_;       // fastText's label index -> our label id
  std::string loss_;                      // resolved when staged
  std::optional<bool> text_rows_;         // how the model's training rows were written
  std::vector<std::string> train_args_;   // the final training, as a command line
  std::string tuned_args_, autotune_budget_, autotune_trials_, pauses_;
  int autotune_finished_ = 0;
  int64_t epochs_trained_ = 0;
  double lr_trained_ = 0;
};

}  // namespace sparsebench
