#pragma once

#include <chrono>

namespace sparsebench {

// Accumulates the steady-clock time between each Start and the Stop that follows it.
class Stopwatch {
 public:
  void Start() { start_ = Clock::now(); }
  // Adds the time since Start; returns the total so far.
  double Stop() {
    total_ += std::chrono::duration<double>(Clock::now() - start_).count();
    return total_;
  }
  double seconds() const { return total_; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now();
  double total_ = 0;
};

}  // namespace sparsebench
