#include "engine/common/vector_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "datasets/random.h"

namespace sparsebench {
namespace {

std::vector<uint16_t> RandomBf16(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint16_t> v(n);
  for (uint16_t& x : v) x = ToBf16(static_cast<float>(rng.Uniform() - 0.5));
  return v;
}

std::vector<float> RandomFloats(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.Uniform() - 0.5);
  return v;
}

// Every length around the 16 lanes: the tail is summed too, and the result is the exact dot
// product up to float rounding.
TEST(Dot, MatchesADoubleReferenceAtEveryLength) {
  for (size_t n : {0, 1, 7, 15, 16, 17, 31, 128, 131}) {
    const std::vector<uint16_t> a16 = RandomBf16(n, 1 + n);
    const std::vector<float> a = RandomFloats(n, 2 + n), b = RandomFloats(n, 3 + n);
    double want = 0, want16 = 0, scale = 0;
    for (size_t i = 0; i < n; ++i) {
      want += double{a[i]} * b[i];
      want16 += double{FromBf16(a16[i])} * b[i];
      scale += std::abs(double{a[i]} * b[i]) + std::abs(double{FromBf16(a16[i])} * b[i]);
    }
    EXPECT_NEAR(Dot(a.data(), b.data(), n), want, 1e-6 * scale + 1e-12) << "n = " << n;
    EXPECT_NEAR(Dot(a16.data(), b.data(), n), want16, 1e-6 * scale + 1e-12) << "n = " << n;
  }
}

// bf16 rows and their fp32 widening sum in the same order: the same bits.
TEST(Dot, Bf16RowGivesTheBitsOfItsWidening) {
  const std::vector<uint16_t> a16 = RandomBf16(131, 4);
  const std::vector<float> b = RandomFloats(131, 5);
  std::vector<float> a(a16.size());
  WidenBf16(a16.data(), a16.size(), a.data());
  EXPECT_EQ(Dot(a16.data(), b.data(), b.size()), Dot(a.data(), b.data(), b.size()));
}

}  // namespace
}  // namespace sparsebench
