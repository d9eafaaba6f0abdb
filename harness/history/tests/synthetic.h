#pragma once

#include <cmath>
#include <numbers>
#include <vector>

#include "datasets/random.h"

namespace sparsebench::testing {

// `n` points around `level` with Gaussian noise of `noise` (a fraction of the level), seeded.
inline std::vector<double> Noisy(size_t n, double level, double noise, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> x(n);
  for (double& v : x) {  // Box-Muller
    const double u = 1 - rng.Uniform(), w = rng.Uniform();
    v = level * (1 + noise * std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * w));
  }
  return x;
}

inline std::vector<double> Joined(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace sparsebench::testing
