#pragma once

#include <fasttext/args.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sparsebench {

// What the search found, and what it cost.
struct AutotuneSearch {
  fasttext::Args best;
  double best_score = 0;           // validation f1 of the top label
  double best_trial_seconds = 0;   // its trial's training, on the tuning rows
  double best_final_estimate = 0;  // its final training on all rows, estimated
  double seconds = 0;              // the whole search
  int trials = 0, finished = 0, stopped = 0, unfitting = 0;
};

// fastText's autotune (its AutotuneStrategy: trial 1 = `original`, then Gaussian steps around
// the best, narrowing with time), scored like fastText's (f1 of the top label on
// `valid_file`), but within one budget of `budget_seconds` for the search and the final
// training, which is estimated as a trial's training time × `final_scale`. The search ends at
// the budget - (the best trial's final training) - (the most a trial took outside its
// interruptible epochs: fastText's dictionary and matrix set-up, the validation); a trial is
// stopped (FastText::abort from its training callback) at that deadline, or as soon as its
// own final training could no longer fit; no trial starts that could not end before the
// deadline at the pace of the fastest so far. fasttext::Autotune::train itself cannot do
// this: it retrains the best arguments after its duration, unbounded and without a training
// callback. std::runtime_error when no trial could finish and leave time for its final
// training.
AutotuneSearch SearchFastTextArgs(const fasttext::Args& original, const std::string& valid_file,
                                  int64_t budget_seconds, double final_scale);

// The settings autotune may change, as fastText's command line would give them.
std::vector<std::string> TunedArgv(const fasttext::Args& args);

// How the budget was spent, e.g. "search 45.1 s (17 trials, ...) + final training on all rows
// 12.3 s (estimated 13.0 s from its 10.7 s trial) = 57.4 s of 60 s", and why it overran if it
// did.
std::string AutotuneBudgetText(const AutotuneSearch& search, double final_seconds,
                               int64_t budget_seconds);

}  // namespace sparsebench
