#pragma once

#include <fasttext/args.h>
#include <fasttext/fasttext.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <streambuf>
#include <string>

#include "engine/api/learner.h"

namespace sparsebench {

// fastText with read access to what its training threads share: how far training is and
// thread 0's loss. FastText has no virtual functions; this adds accessors only.
class FastTextModel : public fasttext::FastText {
 public:
  // Tokens processed over the tokens of all epochs: fastText's own progress.
  double TrainedFraction() const {
    if (!args_ || !dict_) return 0;
    const double total = static_cast<double>(args_->epoch) * static_cast<double>(dict_->ntokens());
    return total > 0 ? static_cast<double>(tokenCount_.load()) / total : 1.0;
  }
  // Training threads leave their loop once this holds (fastText's keepTraining, negated).
  bool Stopped() const { return TrainedFraction() >= 1.0 || trainException_ != nullptr; }
  // Thread 0's average loss since training began; negative before it is first known.
  float Loss() const { return loss_.load(); }
};

// fastText reports progress on std::cerr (from its training threads at -verbose 2, which it
// needs to keep its loss current, and from autotune's timer); the harness writes its own
// progress lines to C stderr, which this leaves alone.
class QuietCerr {
 public:
  QuietCerr() : old_(std::cerr.rdbuf(&null_)) {}
  ~QuietCerr() { std::cerr.rdbuf(old_); }
  QuietCerr(const QuietCerr&) = delete;
  QuietCerr& operator=(const QuietCerr&) = delete;

 private:
  class Null : public std::streambuf {
   protected:
    int overflow(int c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  };
  Null null_;
  std::streambuf* old_;
};

// What a paused training run reports: seconds spent in the plan's pauses (the harness stops
// its clock there) and the barrier's account of the pauses taken and dropped.
struct PausedTraining {
  double paused_seconds = 0;
  std::string summary;
  bool stopped = false;  // the plan ended training before fastText's last epoch
};

// Trains `model` with `args`, pausing as `plan` asks (`rows` per epoch; `before_pause` runs
// first in every pause).
PausedTraining TrainWithPauses(FastTextModel& model, const fasttext::Args& args, const PausePlan& plan,
                               uint64_t rows, const std::function<void()>& before_pause);

}  // namespace sparsebench
