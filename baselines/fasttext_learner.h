#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "baselines/fasttext_format.h"
#include "baselines/subprocess.h"
#include "engine/learner.h"

namespace sparsebench {

// fastText's supervised mode, driven through Debian's `fasttext` binary. Text datasets
// are written as "__label__<id> <normalized text>"; XMC data as feature tokens. One
// TrainEpoch call runs all of fastText's epochs. Predictions come from `predict-prob`
// and are scored by our metrics code.
//
// Spec keys (fasttext:key=value,...):
//   dim=10  ngrams=2 (-wordNgrams)  mincount=1  bucket=10000000  epoch=5
//   lr=0.1      fastText's own rate; the published recipe uses 0.1 for Yelp, 0.5 for DBPedia
//   loss=auto   softmax when every row has one label, else ova; or softmax, ova, hs
//   values=drop XMC only: drop = each feature once; repeat = a feature repeated
//               round(value / smallest positive value in its row) times, at most 10
//   autotune=0  seconds of fastText's autotune on a seeded 10% held-out slice, then a retrain
//               on all rows with the chosen arguments; dim, ngrams, bucket, epoch and lr are
//               tuned unless the spec gives them (fastText never tunes an argument it is given)
//   bin=fasttext  the binary, looked up in PATH unless it contains a '/'
// spec() names every setting (with autotune, only the given ones); loss is resolved once
// trained, and values is left out for text data. TrainOptions: threads become -thread and
// seed -seed (mod 2^31); lr and batch are ignored. The hook is never called (fastText runs as
// a separate process), and every TrainEpoch call trains a new model from scratch on the rows
// that have labels. EpochReport.seconds is the wall time of that fastText process (after
// autotune, of the retrain); details hold seconds_write (writing its input files) and
// seconds_autotune; mean_loss stays 0 (fastText does not report it at -verbose 0).
// context(): fasttext_binary, fasttext_args (the final training command) and, after autotune,
// fasttext_tuned_args. Files live in a temporary directory that the destructor removes.
class FastTextLearner : public Learner {
 public:
  FastTextLearner(const std::string& spec, const DataShape& shape, const TrainOptions& options);
  ~FastTextLearner() override;
  FastTextLearner(const FastTextLearner&) = delete;
  FastTextLearner& operator=(const FastTextLearner&) = delete;

  std::string spec() const override;
  TrainSettings settings() const override;
  void Train(const Dataset& train, const PausePlan& plan) override;
  TopK Predict(const Dataset& data, uint32_t k) const override;
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override;
  void Save(const std::string& path) const override;
  size_t model_bytes() const override;
  std::map<std::string, std::string> context() const override;

 private:
  struct Config {
    std::optional<int64_t> dim, ngrams, bucket, epoch;  // unset: default, or tuned
    std::optional<double> lr;
    int64_t mincount = 1;
    std::string loss = "auto";
    bool repeat_values = false;
    int64_t autotune_seconds = 0;
    int64_t threads = 0;  // 0: the run's --threads; 1 makes fastText deterministic
    std::string bin = "fasttext";
  };
  struct Setting {
    std::string key, flag;
    std::optional<std::string> value;  // unset: left to autotune
  };
  static Config ParseConfig(const std::string& spec);

  std::vector<Setting> TunableSettings() const;
  std::vector<std::string> ModelArgs() const;
  std::vector<std::string> ProcessArgs() const;
  std::vector<std::string> Autotune(const Dataset& train, const std::vector<uint32_t>& rows);
  ProcessResult Run(std::vector<std::string> args, const std::filesystem::path& dir,
                    const std::string& stdout_name) const;
  std::filesystem::path model_file() const { return dir_.path() / "model.bin"; }

  Config config_;
  TrainOptions options_;
  uint32_t num_labels_;
  std::string binary_;  // empty when not found
  TempDir dir_;
  std::string loss_;               // resolved when trained
  std::optional<bool> text_rows_;  // how the model's training rows were written
  std::vector<std::string> train_args_;
  std::vector<std::string> tuned_args_;
};

}  // namespace sparsebench
