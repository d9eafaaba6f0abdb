#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "datasets/random.h"

namespace sparsebench {

// Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^exponent.
class Zipf {
 public:
  Zipf(uint32_t n, double exponent) : cdf_(n) {
    double sum = 0;
    for (uint32_t r = 0; r < n; ++r) cdf_[r] = sum += std::pow(r + 1.0, -exponent);
    for (double& c : cdf_) c /= sum;
  }
  uint32_t Sample(Rng& rng) const {
    auto it = std::upper_bound(cdf_.begin(), cdf_.end(), rng.Uniform());
    return static_cast<uint32_t>(std::min<std::ptrdiff_t>(it - cdf_.begin(), std::ssize(cdf_) - 1));
  }
  uint32_t size() const { return static_cast<uint32_t>(cdf_.size()); }

 private:
  std::vector<double> cdf_;
};

inline uint32_t Poisson(Rng& rng, double mean) {
  const double limit = std::exp(-mean);
  uint32_t k = 0;
  for (double p = rng.Uniform(); p > limit; p *= rng.Uniform()) ++k;
  return k;
}

// Log-normal with the given mean and sigma of the underlying normal (Box-Muller).
inline double LogNormal(Rng& rng, double mean, double sigma) {
  const double u1 = 1.0 - rng.Uniform(), u2 = rng.Uniform();
  const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  return mean * std::exp(sigma * normal - 0.5 * sigma * sigma);
}

}  // namespace sparsebench
