#include "baselines/fasttext_pauses.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <vector>

namespace sparsebench {
namespace {

using Clock = std::chrono::steady_clock;

// Threads leave fastText's loop as soon as the token count reaches the end, so no pause is
// planned this close to it: the final pause after train() returns ends the last epoch.
constexpr double kLastPausePoint = 0.98;
// A parked thread re-checks every kPoll whether the others can still arrive; after kMaxWait
// it gives up on the pause (and on later ones) rather than risk a deadlock.
constexpr auto kPoll = std::chrono::milliseconds(2);
constexpr auto kMaxWait = std::chrono::seconds(60);

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Turns fastText's training callback (every 64 lines of every training thread) into the
// harness's pauses. When fastText's progress crosses the next planned point, the first
// thread to see it asks for a pause; each thread that calls the callback then parks; when
// all `threads` are parked, the last one to arrive calls the plan (the harness stops its
// clock inside) and then releases the others. A parked thread stops waiting when training
// has ended without it (a thread that has left fastText's loop never calls back: then the
// pause is dropped, the final one covers it) or after kMaxWait (then no more pauses are
// taken). An exception from the plan aborts fastText's training and is rethrown by Rethrow();
// nothing escapes a training thread. A plan that says stop aborts it too, with the model kept.
class PauseBarrier {
 public:
  PauseBarrier(const PausePlan& plan, FastTextModel& model, int threads, int64_t epochs,
               uint64_t rows, std::function<void()> before_pause)
      : plan_(plan), model_(model), threads_(std::max(threads, 1)), epochs_(epochs), rows_(rows),
        before_pause_(std::move(before_pause)) {
    const int64_t per_epoch = plan.per_epoch;
    const int64_t points = per_epoch == 0 ? epochs : per_epoch * epochs;
    for (int64_t j = 1; j < points; ++j) {
      const double at = static_cast<double>(j) / static_cast<double>(points);
      const bool epoch_end = per_epoch == 0 || j % per_epoch == 0;
      if (at > kLastPausePoint) break;
      points_.push_back({at, epoch_end, per_epoch == 0 ? j : j / per_epoch});
    }
  }

  fasttext::FastText::TrainCallback Callback() {
    if (!plan_.pause || points_.empty()) return {};
    return [this](float progress, float loss, double wst, double lr, int64_t) {
      OnCallback(progress, loss, wst, lr);
    };
  }

  // The pause that ends training, on the calling thread once fastText's threads are done.
  void Finish() { static_cast<void>(Pause(1.0, true, epochs_, model_.Loss(), {})); }

  void Rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

  double paused_seconds() const { return paused_seconds_; }
  bool stopped() const { return stopped_; }

  std::string Summary() const {
    std::string s = fmt::format("{} of {} planned pauses taken", taken_, points_.size() + 1);
    if (dropped_ > 0) s += fmt::format(", {} dropped (training ended first)", dropped_);
    if (gave_up_) s += fmt::format(", gave up after waiting {} s for every thread to park", kMaxWait.count());
    return s;
  }

 private:
  struct Point {
    double at;
    bool epoch_end;
    int64_t epoch;  // the whole epochs done at this point
  };

  void OnCallback(float progress, float loss, double wst, double lr) noexcept {
    try {
      std::unique_lock<std::mutex> lock(mu_);
      if (error_ || gave_up_) return;
      if (!requested_) {
        if (next_ >= points_.size() || progress < points_[next_].at) return;
        requested_ = true;
        requested_at_ = Clock::now();
      }
      const uint64_t generation = generation_;
      if (++parked_ == threads_) {
        Lead(lock, loss, wst, lr);
        return;
      }
      while (generation_ == generation) {
        cv_.wait_for(lock, kPoll);
        if (generation_ != generation || leading_) continue;
        if (model_.Stopped()) {
          dropped_ += points_.size() - next_;
          next_ = points_.size();
          Release();
        } else if (Clock::now() - requested_at_ > kMaxWait) {
          gave_up_ = true;
          Release();
        }
      }
    } catch (...) {
      Fail(std::current_exception());
    }
  }

  // Every thread is parked: consume the points crossed, pause, release.
  void Lead(std::unique_lock<std::mutex>& lock, float loss, double wst, double lr) {
    leading_ = true;
    const double fraction = std::max(model_.TrainedFraction(), points_[next_].at);
    bool epoch_end = false;
    int64_t epoch = 0;
    while (next_ < points_.size() && points_[next_].at <= fraction) {
      epoch_end |= points_[next_].epoch_end;
      if (points_[next_].epoch_end) epoch = points_[next_].epoch;
      ++next_;
    }
    lock.unlock();
    try {
      if (!Pause(fraction, epoch_end, epoch, loss,
                 {{"fasttext_lr", lr}, {"fasttext_words_per_second_per_thread", wst}})) {
        stopped_ = true;
        if (!aborted_.exchange(true)) model_.abort();
      }
    } catch (...) {
      Fail(std::current_exception());
    }
    lock.lock();
    leading_ = false;
    Release();
  }

  void Release() {
    requested_ = false;
    parked_ = 0;
    ++generation_;
    cv_.notify_all();
  }

  // Called without mu_ held.
  void Fail(std::exception_ptr error) noexcept {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = error;
    }
    if (!aborted_.exchange(true)) model_.abort();  // every thread leaves fastText's loop
  }

  // Runs the plan; called by one thread at a time (the leader, or the caller of Finish). False
  // when the plan stops training.
  bool Pause(double fraction, bool epoch_end, int64_t epoch, float loss,
             std::map<std::string, double> details) {
    if (!plan_.pause) return true;
    if (before_pause_) before_pause_();
    Progress p;
    p.epoch = std::max(last_epoch_, fraction * static_cast<double>(epochs_));
    last_epoch_ = p.epoch;
    // Samples since the previous epoch end, as the other learners count them, so that the
    // epoch ends add up to rows x epochs.
    const auto done = epoch_end ? static_cast<uint64_t>(epoch) * rows_
                                : static_cast<uint64_t>(std::llround(p.epoch * static_cast<double>(rows_)));
    p.samples = done > reported_samples_ ? done - reported_samples_ : 0;
    if (epoch_end) reported_samples_ += p.samples;
    p.mean_loss = loss >= 0 ? loss : NAN;
    p.epoch_end = epoch_end;
    if (epoch_end) p.details = std::move(details);
    const Clock::time_point start = Clock::now();
    ++taken_;
    const bool go_on = plan_(p);
    paused_seconds_ += Seconds(start);
    return go_on;
  }

  const PausePlan& plan_;
  FastTextModel& model_;
  const int threads_;
  const int64_t epochs_;
  const uint64_t rows_;
  std::function<void()> before_pause_;
  std::vector<Point> points_;

  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;  // the next point not yet consumed
  bool requested_ = false, leading_ = false, gave_up_ = false;
  int parked_ = 0;
  uint64_t generation_ = 0;
  Clock::time_point requested_at_;
  size_t dropped_ = 0;

  std::exception_ptr error_;  // under mu_ while training threads run
  std::atomic<bool> aborted_{false};
  bool stopped_ = false;  // written by the leader before it releases the others

  // Touched by the pausing thread only.
  double last_epoch_ = 0;
  uint64_t reported_samples_ = 0;
  size_t taken_ = 0;
  double paused_seconds_ = 0;
};

}  // namespace

PausedTraining TrainWithPauses(FastTextModel& model, const fasttext::Args& args, const PausePlan& plan,
                               uint64_t rows, const std::function<void()>& before_pause) {
  PauseBarrier barrier(plan, model, args.thread, args.epoch, rows, before_pause);
  try {
    const QuietCerr quiet;
    model.train(args, barrier.Callback());
  } catch (const fasttext::FastText::AbortError&) {
    barrier.Rethrow();  // the plan's exception, when the barrier aborted training for it
    if (!barrier.stopped()) throw;
    return {barrier.paused_seconds(), barrier.Summary() + ", then stopped by the plan", true};
  }
  barrier.Rethrow();
  barrier.Finish();
  return {barrier.paused_seconds(), barrier.Summary()};
}

}  // namespace sparsebench
