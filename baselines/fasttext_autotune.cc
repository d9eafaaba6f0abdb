#include "baselines/fasttext_autotune.h"

#include <fasttext/autotune.h>
#include <fasttext/meter.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

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

double TrialPace::Projected(double seconds, double progress) {
  if (!start) {
    start.emplace(seconds, progress);  // the dictionary and the matrices are built by now
    return seconds;
  }
  const double done = progress - start->second;
  if (done < kPaceKnown) return seconds;
  return seconds + (seconds - start->first) / done * std::max(0.0, 1.0 - progress);
}

std::string AutotuneDuration::Text() const {
  return first_trials > 0 ? fmt::format("{:g} × the first trial", first_trials)
                          : fmt::format("{:g} s", seconds);
}

AutotuneSearch SearchFastTextArgs(const fasttext::Args& original, const std::string& valid_file,
                                  const AutotuneDuration& duration) {
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return Seconds(start); };

  AutotuneSearch s;
  s.duration = duration.seconds;
  s.min_finished = duration.min_finished;
  s.trial_cap = duration.trial_cap;
  double first_seconds = 0;
  // Past its duration, the search ends once enough trials have finished, or at the cap.
  auto over = [&](double t) {
    return t > s.duration &&
           (s.finished >= s.min_finished || t > AutotuneDuration::kMaxExtension * s.duration);
  };
  std::optional<fasttext::Args> best;
  double fastest =
      std::numeric_limits<double>::infinity();  // the shortest finished trial, validation included
  std::optional<fasttext::AutotuneStrategy> strategy;
  const QuietCerr quiet;
  auto search_model = std::make_shared<FastTextModel>();
  while (true) {
    const double now = elapsed();
    if (strategy && over(now + fastest)) break;
    fasttext::Args args = original;
    if (strategy) args = strategy->ask(now);
    args.verbose = 0;  // as fastText's autotune trains its trials
    ++s.trials;
    std::atomic<bool> aborted{false}, slow{false};
    std::atomic<double> projected{0};
    const bool first = !strategy;
    TrialPace pace;
    auto callback = [&](float progress, float, double, double, int64_t) {
      if (first || aborted.load(std::memory_order_relaxed)) return;
      const double t = elapsed();
      const double total = pace.Projected(t - now, progress);
      const bool too_slow = s.trial_cap > 0 && total > s.trial_cap * first_seconds;
      if (!too_slow && !over(t)) return;
      if (!aborted.exchange(true)) slow = too_slow, projected = total, search_model->abort();
    };
    bool completed = false;
    AutotuneTrial trial{fmt::format("{}", fmt::join(TunedArgv(args), " ")), 0, ""};
    try {
      search_model->train(args, callback);
      completed = true;
    } catch (const fasttext::FastText::AbortError&) {
      ++s.stopped;
      s.too_slow += slow.load();
      trial.outcome = slow.load()
                          ? fmt::format("stopped: too slow (projected {:.0f} s)", projected.load())
                          : "stopped: end of the search";
    } catch (const fasttext::DenseMatrix::EncounteredNaNError&) {
      trial.outcome = "diverged";  // skipped as fastText's autotune does
    } catch (const std::bad_alloc&) {
      trial.outcome = "out of memory";  // skipped as fastText's autotune does
    }
    if (completed) {
      ++s.finished;
      fasttext::Meter meter(false);
      std::ifstream valid(valid_file);
      search_model->test(valid, original.autotunePredictions, 0.0, meter);
      const double score = meter.f1Score();
      trial.outcome = fmt::format("f1 {:.4f}", score);
      fastest = std::min(fastest, elapsed() - now);
      if (!best || score > s.best_score) {
        best = args;
        s.best_score = score;
        if (strategy) strategy->updateBest(args);
      }
    }
    trial.seconds = elapsed() - now;
    s.finished_in_time += completed && (first || now + trial.seconds <= s.duration);
    s.log.push_back(std::move(trial));
    if (first) {
      first_seconds = elapsed();
      if (duration.first_trials > 0) s.duration = duration.first_trials * first_seconds;
      if (!best) break;  // trial 1 diverged or ran out of memory: nothing to search around
      // The search's horizon, for the strategy's narrowing.
      fasttext::Args horizon = original;
      horizon.autotuneDuration = static_cast<int>(std::max(1.0, std::floor(s.duration)));
      strategy.emplace(horizon, static_cast<std::minstd_rand::result_type>(original.seed));
      strategy->ask(elapsed());  // its trial 1 (the original arguments) is the one just run
      strategy->updateBest(*best);
    }
  }
  s.seconds = elapsed();
  if (!best) {
    throw std::runtime_error(
        "fasttext autotune: its first trial (fastText's default arguments on 90% of the rows) "
        "diverged or ran out of memory, so there is nothing to tune around");
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

std::string AutotuneTrialsText(const AutotuneSearch& s) {
  std::string text;
  for (size_t i = 0; i < s.log.size(); ++i) {
    const AutotuneTrial& t = s.log[i];
    text +=
        fmt::format("{}{}. {} {:.1f} s: {}", i ? "; " : "", i + 1, t.args, t.seconds, t.outcome);
  }
  return text;
}

std::string AutotuneBudgetText(const AutotuneSearch& s, double final_seconds) {
  std::string text = fmt::format(
      "search {:.1f} s of {:.1f} s ({} trials, {} finished, {} stopped at the end of the search{}; "
      "best validation f1 {:.4f}) + final training on all rows {:.1f} s = {:.1f} s",
      s.seconds, s.duration, s.trials, s.finished, s.stopped - s.too_slow,
      s.trial_cap > 0
          ? fmt::format(", {} stopped as slower than {:g} first trials", s.too_slow, s.trial_cap)
          : "",
      s.best_score, final_seconds, s.seconds + final_seconds);
  if (s.trials == 1 && s.seconds > s.duration) {
    text += "; the first trial alone outlasted the search's seconds";
  } else if (s.min_finished > 0 && s.seconds > s.duration && s.finished_in_time < s.min_finished) {
    text +=
        s.finished >= s.min_finished
            ? fmt::format("; the search went on past its {:.1f} s until {} trials had finished",
                          s.duration, s.min_finished)
            : fmt::format(
                  "; the search stopped at {:g} × its {:.1f} s with fewer than {} trials finished",
                  AutotuneDuration::kMaxExtension, s.duration, s.min_finished);
  }
  return text;
}

}  // namespace sparsebench
