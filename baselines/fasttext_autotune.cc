#include "baselines/fasttext_autotune.h"

#include <fasttext/autotune.h>
#include <fasttext/meter.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include "baselines/fasttext_pauses.h"

namespace sparsebench {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

}  // namespace

AutotuneSearch SearchFastTextArgs(const fasttext::Args& original, const std::string& valid_file,
                                  int64_t budget_seconds, double scale) {
  const double budget = static_cast<double>(budget_seconds);
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return Seconds(start); };

  AutotuneSearch s;
  std::optional<fasttext::Args> best;
  double overhead = 0;  // the most a trial spent outside its epochs
  double fastest =
      std::numeric_limits<double>::infinity();  // the shortest finished trial, validation included
  std::optional<fasttext::AutotuneStrategy> strategy;
  // The search's deadline: the best trial's final training and a trial's overhead must fit.
  auto deadline = [&] {
    return best ? budget - s.best_final_estimate - overhead : budget - overhead;
  };
  const QuietCerr quiet;
  auto search_model = std::make_shared<FastTextModel>();
  while (true) {
    const double now = elapsed();
    if (now + (s.finished > 0 ? fastest : 0.0) > deadline()) break;
    fasttext::Args args = original;
    if (strategy) args = strategy->ask(now);
    args.verbose = 0;  // as fastText's autotune trains its trials
    ++s.trials;
    const double trial_start = now;
    std::atomic<bool> aborted{false}, started{false};
    std::atomic<double> first_callback{0};
    auto callback = [&](float, float, double, double, int64_t) {
      const double t = elapsed();
      if (!started.exchange(true)) first_callback = t;
      if (aborted.load(std::memory_order_relaxed)) return;
      if (t > deadline() || t + scale * (t - trial_start) + overhead > budget) {
        if (!aborted.exchange(true)) search_model->abort();
      }
    };
    bool completed = false;
    try {
      search_model->train(args, callback);
      completed = true;
    } catch (const fasttext::FastText::AbortError&) {
      ++s.stopped;
    } catch (const fasttext::DenseMatrix::EncounteredNaNError&) {
      // a diverging trial, skipped as fastText's autotune does
    } catch (const std::bad_alloc&) {
      // arguments asking for too much memory, skipped as fastText's autotune does
    }
    const double trained = elapsed();
    const double trial_seconds = trained - trial_start;
    if (started) overhead = std::max(overhead, first_callback.load() - trial_start);
    if (completed) {
      ++s.finished;
      fasttext::Meter meter(false);
      std::ifstream valid(valid_file);
      search_model->test(valid, original.autotunePredictions, 0.0, meter);
      const double score = meter.f1Score();
      const double validated = elapsed();
      overhead =
          std::max(overhead, (started ? first_callback.load() - trial_start : trial_seconds) +
                                 validated - trained);
      fastest = std::min(fastest, validated - trial_start);
      if (!best || score > s.best_score) {
        if (validated + scale * trial_seconds + overhead <= budget) {
          best = args;
          s.best_score = score;
          s.best_trial_seconds = trial_seconds;
          s.best_final_estimate = scale * trial_seconds;
          if (strategy) strategy->updateBest(args);
        } else {
          ++s.unfitting;  // better, but its final training would not fit the budget
        }
      }
    }
    if (!strategy) {
      // The search's horizon, for the strategy's narrowing: the deadline as trial 1 sets it
      // (half the budget when trial 1 did not finish).
      fasttext::Args horizon = original;
      horizon.autotuneDuration =
          static_cast<int>(std::max(1.0, std::floor(best ? deadline() : budget / 2)));
      strategy.emplace(horizon, static_cast<std::minstd_rand::result_type>(original.seed));
      strategy->ask(elapsed());  // its trial 1 (the original arguments) is the one just run
      if (best) strategy->updateBest(*best);
    }
  }
  s.seconds = elapsed();
  if (!best) {
    throw std::runtime_error(fmt::format(
        "fasttext:autotune={}: no trial could finish and leave time for its final training on all "
        "rows ({} trials in {:.1f} s, {} stopped; trial 1 uses fastText's default arguments on 90% "
        "of the rows); give autotune more seconds",
        budget_seconds, s.trials, s.seconds, s.stopped));
  }
  s.best = *best;
  return s;
}

std::vector<std::string> TunedArgv(const fasttext::Args& a) {
  return {"-epoch",  std::to_string(a.epoch),  "-lr",         fmt::format("{}", a.lr),
          "-dim",    std::to_string(a.dim),    "-wordNgrams", std::to_string(a.wordNgrams),
          "-bucket", std::to_string(a.bucket), "-minn",       std::to_string(a.minn),
          "-maxn",   std::to_string(a.maxn),   "-dsub",       std::to_string(a.dsub),
          "-loss",   a.lossToString(a.loss)};
}

std::string AutotuneBudgetText(const AutotuneSearch& s, double final_seconds,
                               int64_t budget_seconds) {
  const double total = s.seconds + final_seconds;
  std::string text = fmt::format(
      "search {:.1f} s ({} trials, {} finished, {} stopped at the budget, {} better but too slow "
      "to retrain; best validation f1 {:.4f}) + final training on all rows {:.1f} s (estimated "
      "{:.1f} s from its {:.1f} s trial) = {:.1f} s of {} s",
      s.seconds, s.trials, s.finished, s.stopped, s.unfitting, s.best_score, final_seconds,
      s.best_final_estimate, s.best_trial_seconds, total, budget_seconds);
  const double budget = static_cast<double>(budget_seconds);
  if (total <= budget) return text;
  const double over = total - budget, late = s.seconds - (budget - s.best_final_estimate);
  text += fmt::format(": overran by {:.1f} s because ", over);
  if (late > 0 && late >= final_seconds - s.best_final_estimate) {
    return text +
           fmt::format(
               "the search ended {:.1f} s past its deadline (a trial's dictionary building and "
               "validation cannot be interrupted)",
               late);
  }
  return text + fmt::format("the final training took {:.1f} s more than estimated",
                            final_seconds - s.best_final_estimate);
}

}  // namespace sparsebench
