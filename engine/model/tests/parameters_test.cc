#include "engine/model/parameters.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

#include "engine/common/aligned.h"

namespace sparsebench {
namespace {

TEST(AssignZeros, LargeArraysComeBackZeroAndSized) {
  for (size_t n : {size_t{1000}, size_t{3} << 20}) {  // below and above the threaded path
    for (size_t before : {n / 2, n}) {                // new storage, and the old reused
      FloatVector v(before, 7.0f);
      const float* storage = v.data();
      AssignZeros(v, n);
      ASSERT_EQ(v.size(), n);
      if (before == n) {
        EXPECT_EQ(v.data(), storage);
      }
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], 0.0f) << "at " << i << " of " << n;
    }
  }
}

// Glorot-uniform: inside +-sqrt(6 / (fan_in + fan_out)), mean 0, variance 2 / (fan_in + fan_out),
// and the same weights whatever the thread count.
TEST(Parameters, InitializeIsGlorotUniformAndThreadIndependent) {
  const uint32_t rows = 3000, dim = 64;
  const double fan_in = 64, fan_out = 3000, bound = std::sqrt(6.0 / (fan_in + fan_out));
  Parameters one(rows, dim, rows), two(rows, dim, rows, {true, true});
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  one.Initialize(5, fan_in, fan_out);
  omp_set_num_threads(2);
  two.Initialize(5, fan_in, fan_out);
  omp_set_num_threads(threads);
  double sum = 0, squares = 0;
  for (size_t i = 0; i < one.w.size(); ++i) {
    ASSERT_LE(std::abs(one.w[i]), bound);
    ASSERT_EQ(two.w16[i], ToBf16(one.w[i])) << "at " << i;
    sum += one.w[i];
    squares += double{one.w[i]} * one.w[i];
  }
  const auto n = static_cast<double>(one.w.size());
  EXPECT_NEAR(sum / n, 0.0, 0.01 * bound);
  EXPECT_NEAR(squares / n, 2.0 / (fan_in + fan_out), 0.01 * 2.0 / (fan_in + fan_out));
  for (float m : one.m) ASSERT_EQ(m, 0.0f);
}

}  // namespace
}  // namespace sparsebench
