#pragma once

#include <fasttext/args.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sparsebench {

// A trial's whole time, projected from its pace: the seconds it has run plus the rest of its
// training at the pace since its first progress report (setup excluded), once at least
// kPaceKnown of the training is done; until then its seconds so far. Fed by one thread.
struct TrialPace {
  static constexpr double kPaceKnown = 0.02;
  std::optional<std::pair<double, double>> start;  // seconds, progress at the first report

  double Projected(double seconds, double progress);
};

// How long the search runs: `seconds`, or, when `first_trials` > 0, that many times the first
// trial's time (fastText's defaults on the tuning rows, validation included), which grows with
// the data as the trials do. With `min_finished` > 0 the search goes on past that time (no
// trial stopped, new ones started) until that many trials have finished, but never past
// kMaxExtension times it. With `trial_cap` > 0, a trial whose pace projects it longer than
// that many first trials is stopped as too slow as soon as its pace is known (TrialPace).
struct AutotuneDuration {
  static constexpr double kMaxExtension = 4;
  double seconds = 0;
  double first_trials = 0;
  int min_finished = 0;
  double trial_cap = 0;

  std::string Text() const;  // "60 s", "12 × the first trial"
};

// One trial as it ran: the settings it tried, its seconds (validation included) and how it
// ended ("f1 0.9123", "stopped: too slow", "stopped: end of the search", "diverged", ...).
struct AutotuneTrial {
  std::string args;
  double seconds = 0;
  std::string outcome;
};

// What the search found, and what it cost.
struct AutotuneSearch {
  fasttext::Args best;
  double best_score = 0;  // validation f1 of the top label
  double duration = 0;    // the search's resolved duration
  double seconds = 0;     // the whole search, as it ran
  int trials = 0, finished = 0, stopped = 0;
  int too_slow = 0;      // of the stopped, those stopped by the trial cap
  int finished_in_time = 0;  // of the finished, those that ended within `duration`
  int min_finished = 0;  // as asked (AutotuneDuration)
  double trial_cap = 0;
  std::vector<AutotuneTrial> log;
};

// fastText's autotune (its AutotuneStrategy: trial 1 = `original`, then Gaussian steps around
// the best, narrowing with time), scored like fastText's (f1 of the top label on
// `valid_file`), for `duration`, as fastText's -autotune-duration: a trial still running at
// the end of the search is stopped (FastText::abort from its training callback) and no trial
// starts that could not end in time at the pace of the fastest so far. Trial 1 always runs to
// its end, so there is a best. The caller retrains the best arguments on all rows afterwards,
// as fasttext::Autotune::train does after its duration (which it cannot do with a training
// callback, hence this search).
AutotuneSearch SearchFastTextArgs(const fasttext::Args& original, const std::string& valid_file,
                                  const AutotuneDuration& duration);

// The settings autotune may change, as fastText's command line would give them.
std::vector<std::string> TunedArgv(const fasttext::Args& args);

// Every trial, e.g. "1. -epoch 5 -lr 0.1 ... 38.2 s: f1 0.6810; 2. ... 80.1 s: stopped: too slow".
std::string AutotuneTrialsText(const AutotuneSearch& search);

// How the time was spent, e.g. "search 60.2 s of 60 s (17 trials, 16 finished, 1 stopped at
// the end of the search; best validation f1 0.9700) + final training on all rows 12.3 s".
std::string AutotuneBudgetText(const AutotuneSearch& search, double final_seconds);

}  // namespace sparsebench
