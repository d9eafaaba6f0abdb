#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <numbers>
#include <set>

#include "datasets/random.h"
#include "engine/api/engine_error.h"
#include "engine/common/vector_ops.h"
#include "engine/lsh/hash_family.h"
#include "engine/lsh/lsh_config.h"

namespace sparsebench {
namespace {

std::vector<float> Gaussian(Rng& rng, uint32_t dim) {
  std::vector<float> v(dim);
  for (float& x : v) {
    const double u1 = 1.0 - rng.Uniform(), u2 = rng.Uniform();
    x = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2));
  }
  return v;
}

// A random vector at exactly `angle` to x: x cos + (unit orthogonal direction) sin, scaled.
std::vector<float> AtAngle(const std::vector<float>& x, double angle, Rng& rng) {
  std::vector<float> r = Gaussian(rng, static_cast<uint32_t>(x.size()));
  double xx = 0, xr = 0;
  for (size_t i = 0; i < x.size(); ++i) xx += x[i] * x[i], xr += x[i] * r[i];
  double rr = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    r[i] -= static_cast<float>(xr / xx * x[i]);
    rr += r[i] * r[i];
  }
  std::vector<float> y(x.size());
  const double nx = std::sqrt(xx), nr = std::sqrt(rr);
  for (size_t i = 0; i < x.size(); ++i) {
    y[i] = static_cast<float>(std::cos(angle) * x[i] / nx + std::sin(angle) * r[i] / nr);
  }
  return y;
}

// Fraction of single-bit hashes (k = 1) on which pairs at `angle` agree.
double BitAgreement(const std::string& family, double angle) {
  HashParams p;
  p.family = family;
  p.dim = 128;
  p.k = 1;
  p.tables = 256;
  p.seed = 7;
  auto hash = MakeHashFamily(p);
  Rng rng(99);
  HashScratch scratch;
  std::vector<uint32_t> a(p.tables), b(p.tables);
  uint64_t agree = 0, total = 0;
  for (int pair = 0; pair < 400; ++pair) {
    std::vector<float> x = Gaussian(rng, p.dim);
    std::vector<float> y = AtAngle(x, angle, rng);
    hash->Hash(x, a, scratch);
    hash->Hash(y, b, scratch);
    for (uint32_t t = 0; t < p.tables; ++t) agree += a[t] == b[t];
    total += p.tables;
  }
  return static_cast<double>(agree) / static_cast<double>(total);
}

// 102,400 bit comparisons per angle: the binomial standard error is below 0.0016, so a
// tolerance of 0.01 is over six standard errors.
TEST(Srp, CollisionRateIsOneMinusAngleOverPi) {
  for (double angle : {std::numbers::pi / 6, std::numbers::pi / 3, std::numbers::pi / 2,
                       2 * std::numbers::pi / 3}) {
    EXPECT_NEAR(BitAgreement("srp", angle), 1.0 - angle / std::numbers::pi, 0.01) << angle;
  }
}

// The Hadamard variant uses structured, not independent, projections: a looser 0.02.
TEST(FastSrp, CollisionRateIsOneMinusAngleOverPi) {
  for (double angle : {std::numbers::pi / 6, std::numbers::pi / 3, std::numbers::pi / 2,
                       2 * std::numbers::pi / 3}) {
    EXPECT_NEAR(BitAgreement("fastsrp", angle), 1.0 - angle / std::numbers::pi, 0.02) << angle;
  }
}

std::vector<float> SparseRelu(Rng& rng, uint32_t dim, double density) {
  std::vector<float> v(dim, 0.0f);
  for (float& x : v) {
    if (rng.Bernoulli(density)) x = static_cast<float>(rng.Uniform() + 0.01);
  }
  return v;
}

// The tables the engine resolves for a layer of `outputs` neurons, 0.5% of them active.
HashParams Resolved(uint32_t outputs) {
  SelectorParams p;
  p.hash.dim = 128;
  p.lsh_share = 0.5;
  p.probes = SelectorParams::kAutoProbes;
  ResolveLsh(p, outputs, (outputs + 199) / 200);
  return p.hash;
}

TEST(LshConfig, WidthSetsCodeLengthTablesAndProbes) {
  for (const uint32_t outputs : {67'009u, 670'091u, 2'000'000u}) {
    SelectorParams p;
    p.lsh_share = 0.5;
    p.probes = SelectorParams::kAutoProbes;
    p.capacity = 0;
    const uint32_t active = (outputs + 199) / 200;
    ResolveLsh(p, outputs, active);
    const double mean_bucket = outputs / std::ldexp(1.0, static_cast<int>(p.range_bits));
    EXPECT_GE(mean_bucket, 4) << outputs;  // codes about log2(outputs / 16) bits long
    EXPECT_LE(mean_bucket, 64) << outputs;
    EXPECT_EQ(p.range_bits, 3 * p.hash.k)
        << outputs;                            // DWTA bin 8: 3 bits a hash, codes are buckets
    EXPECT_GE(p.probes, p.hash.k) << outputs;  // each hash, then up to k / 2 pairs
    EXPECT_LE(p.probes, p.hash.k + p.hash.k / 2) << outputs;
    EXPECT_EQ(p.hash.tables % 8, 0u) << outputs;
    // The probed buckets return about two candidates per place the tables fill.
    const double candidates = p.hash.tables * (p.probes + 1.0) * mean_bucket;
    if (p.hash.tables > 16 && p.hash.tables < 64) {
      EXPECT_NEAR(candidates / (0.5 * active), 2.0, 0.6) << outputs;
    }
    EXPECT_GE(p.capacity, 4 * mean_bucket) << outputs;
    // A query reads at most 1.5 times what its buckets hold on average, and at most 8
    // neurons for each place the tables fill, unless every table's own bucket holds more.
    const double per_picks = std::max(8 * std::ceil(0.5 * active), p.hash.tables * mean_bucket);
    EXPECT_NEAR(p.reads, std::min(1.5 * candidates, per_picks), 1.0) << outputs;
  }
  EXPECT_EQ(Resolved(67'009).k, 4u);
  EXPECT_EQ(Resolved(670'091).k, 5u);
  EXPECT_EQ(Resolved(670'091).tables, 24u);
}

// Where 16 tables with one probe per hash return enough candidates, the tables stay at 16 and
// the probes at k; wider active sets first pair up hashes, then add tables.
TEST(LshConfig, ProbesPairUpBeforeTablesGrow) {
  auto resolve = [](uint32_t outputs, uint32_t active) {
    SelectorParams p;
    p.lsh_share = 0.5;
    p.probes = SelectorParams::kAutoProbes;
    ResolveLsh(p, outputs, active);
    return p;
  };
  const SelectorParams narrow = resolve(67'009, 335), sweep = resolve(670'091, 336);
  const SelectorParams wide = resolve(670'091, 3'351);
  EXPECT_EQ(narrow.hash.tables, 16u);
  EXPECT_EQ(narrow.probes, narrow.hash.k);
  EXPECT_EQ(sweep.hash.tables, 16u);
  EXPECT_EQ(sweep.probes, sweep.hash.k);
  EXPECT_EQ(wide.probes, 7u);  // k = 5 and 2 pairs
  EXPECT_EQ(wide.hash.tables, 24u);
  // At a small active set the floors of 16 tables and k probes return far more than two
  // candidates a place; the read limit keeps what a query counts the same at every width.
  EXPECT_EQ(narrow.reads, 8u * 168);
  EXPECT_EQ(sweep.reads, 8u * 168);
  EXPECT_LE(resolve(2'000'000, 336).reads, 8u * 168);
  // A tiny active set still reads about every table's own bucket.
  const SelectorParams tiny = resolve(2'000, 10);
  EXPECT_NEAR(tiny.reads,
              tiny.hash.tables * 2'000 / std::ldexp(1.0, static_cast<int>(tiny.range_bits)), 1.0);
  EXPECT_EQ(wide.reads, 5'890u);  // 1.5 x 24 tables x 8 buckets x 20.45 neurons
  SelectorParams too_many;
  too_many.hash.k = 3;
  too_many.probes = MaxProbes(3) + 1;
  EXPECT_THROW(ResolveLsh(too_many, 67'009, 335), ConfigError);
}

// SRP codes have no runners-up to probe: its tables alone return the candidates.
TEST(LshConfig, FamiliesWithoutProbesGetTablesInstead) {
  for (const char* family : {"srp", "fastsrp"}) {
    SelectorParams p;
    p.hash.family = family;
    p.lsh_share = 0.5;
    p.probes = SelectorParams::kAutoProbes;
    ResolveLsh(p, 67'009, 335);
    EXPECT_EQ(p.probes, 0u) << family;
    const double mean_bucket = 67'009 / std::ldexp(1.0, static_cast<int>(p.range_bits));
    EXPECT_NEAR(p.hash.tables * mean_bucket / (0.5 * 335), 2.0, 0.8) << family;
    p.probes = 1;
    EXPECT_THROW(ResolveLsh(p, 67'009, 335), ConfigError) << family;
  }
}

// DWTA with the 670K-output layer's 5 hashes a table (15 probes: 5 single swaps, 10 pairs).
HashParams FiveHashDwta(uint32_t tables, uint64_t seed) {
  HashParams p;
  p.dim = 128;
  p.k = 5;
  p.tables = tables;
  p.seed = seed;
  return p;
}

// Probe p of a table differs from the table's code in one hash for p <= k and in two for the
// pairs after them; every hash and every pair is swapped once, and a swapped hash always takes
// the same (runner-up) value.
TEST(Dwta, ProbesSwapEachHashThenEachPair) {
  const HashParams p = FiveHashDwta(8, 3);
  auto hash = MakeHashFamily(p);
  const uint32_t probes = MaxProbes(p.k), bits = 3, mask = 7;
  Rng rng(12);
  HashScratch scratch;
  std::vector<uint32_t> own(p.tables), codes(size_t{p.tables} * (probes + 1));
  for (int i = 0; i < 20; ++i) {
    const std::vector<float> x = Gaussian(rng, p.dim);
    hash->Hash(x, own, scratch);
    hash->HashProbes(x, probes, codes, scratch);
    for (uint32_t t = 0; t < p.tables; ++t) {
      const uint32_t* out = codes.data() + size_t{t} * (probes + 1);
      ASSERT_EQ(out[0], own[t]);
      std::vector<int> swapped_to(p.k, -1);
      std::set<uint32_t> seen;
      for (uint32_t q = 1; q <= probes; ++q) {
        uint32_t changed = 0;
        for (uint32_t h = 0; h < p.k; ++h) {
          const uint32_t shift = bits * (p.k - 1 - h), was = (out[0] >> shift) & mask,
                         now = (out[q] >> shift) & mask;
          if (was == now) continue;
          changed |= 1u << h;
          if (swapped_to[h] < 0) swapped_to[h] = static_cast<int>(now);
          EXPECT_EQ(swapped_to[h], static_cast<int>(now)) << "hash " << h << " probe " << q;
        }
        EXPECT_EQ(std::popcount(changed), q <= p.k ? 1 : 2) << "probe " << q;
        EXPECT_TRUE(seen.insert(changed).second) << "probe " << q << " repeats a swap";
      }
    }
  }
}

// Probes come most likely first: a slightly changed vector's own bucket is found more often
// by a table's first probe than by its last pair.
TEST(Dwta, EarlierProbesFindNearVectorsMoreOften) {
  const HashParams p = FiveHashDwta(16, 4);
  auto hash = MakeHashFamily(p);
  const uint32_t probes = MaxProbes(p.k);
  Rng rng(13);
  HashScratch scratch;
  std::vector<uint32_t> near(p.tables), codes(size_t{p.tables} * (probes + 1));
  std::vector<uint64_t> found(probes + 1, 0);
  for (int i = 0; i < 400; ++i) {
    const std::vector<float> x = SparseRelu(rng, p.dim, 0.5);
    std::vector<float> y = x;
    for (float& v : y) v *= static_cast<float>(1.0 + 0.2 * rng.Uniform());
    hash->HashProbes(x, probes, codes, scratch);
    hash->Hash(y, near, scratch);
    for (uint32_t t = 0; t < p.tables; ++t) {
      for (uint32_t q = 0; q <= probes; ++q)
        found[q] += codes[size_t{t} * (probes + 1) + q] == near[t];
    }
  }
  uint64_t singles = 0, pairs = 0;
  for (uint32_t q = 1; q <= p.k; ++q) singles += found[q];
  for (uint32_t q = p.k + 1; q <= probes; ++q) pairs += found[q];
  EXPECT_GT(found[0], found[1]);
  EXPECT_GT(found[1], 2 * found[p.k]);
  EXPECT_GT(found[p.k + 1], 2 * found[probes]);
  EXPECT_GT(singles, pairs);  // 5 singles against 10 pairs
}

TEST(Dwta, EqualVectorsAlwaysCollideRandomOnesRarely) {
  const HashParams p = Resolved(670'091);
  auto hash = MakeHashFamily(p);
  Rng rng(5);
  HashScratch scratch;
  std::vector<uint32_t> a(p.tables), b(p.tables);
  uint64_t collisions = 0, total = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<float> x = SparseRelu(rng, p.dim, 0.3), y = SparseRelu(rng, p.dim, 0.3);
    hash->Hash(x, a, scratch);
    hash->Hash(std::vector<float>(x), b, scratch);
    EXPECT_EQ(a, b);
    hash->Hash(y, b, scratch);
    for (uint32_t t = 0; t < p.tables; ++t) collisions += a[t] == b[t];
    total += p.tables;
  }
  // Five independent 1-in-8 winners must all agree: about 8^-5 by chance, plus densification.
  EXPECT_LT(static_cast<double>(collisions) / total, 0.01);
}

TEST(Dwta, SimilarVectorsCollideMoreThanRandomOnes) {
  const HashParams p = Resolved(67'009);
  auto hash = MakeHashFamily(p);
  Rng rng(8);
  HashScratch scratch;
  std::vector<uint32_t> a(p.tables), b(p.tables), c(p.tables);
  uint64_t near = 0, far = 0;
  for (int i = 0; i < 100; ++i) {
    std::vector<float> x = SparseRelu(rng, p.dim, 0.5), y = x, z = SparseRelu(rng, p.dim, 0.5);
    for (float& v : y) v *= static_cast<float>(1.0 + 0.05 * rng.Uniform());
    hash->Hash(x, a, scratch);
    hash->Hash(y, b, scratch);
    hash->Hash(z, c, scratch);
    for (uint32_t t = 0; t < p.tables; ++t) near += a[t] == b[t], far += a[t] == c[t];
  }
  EXPECT_GT(near, 3 * far);
}

// Rebuilds hash weight rows (fp32 or bf16) in blocks; the codes must be those of hashing row by
// row, for a block count that is not a multiple of the block size and rows with all-zero bins.
TEST(HashFamily, RowsInBlocksHashLikeOneRowAtATime) {
  for (const uint32_t dim : {64u, 40u, 33u})  // 40, 33: tails; 33: bf16 rows not in pairs
    for (const char* family : {"dwta", "srp", "fastsrp"}) {
      HashParams p;
      p.family = family;
      p.dim = dim;
      p.k = 4;
      p.tables = 24;
      auto hash = MakeHashFamily(p);
      Rng rng(5);
      constexpr uint32_t kRows = 37;
      std::vector<float> rows;
      for (uint32_t r = 0; r < kRows; ++r) {
        std::vector<float> x = Gaussian(rng, p.dim);
        if (r % 5 == 0)
          std::fill(x.begin(), x.begin() + 3 * dim / 4, 0.0f);  // bins with no nonzero
        rows.insert(rows.end(), x.begin(), x.end());
      }
      std::vector<uint32_t> codes(size_t{kRows} * p.tables), codes16(codes.size()), one(p.tables);
      HashScratch scratch;
      hash->HashRows(rows.data(), kRows, p.dim, codes.data(), kRows, scratch);
      // bf16 rows hash like the floats they stand for: ties (bf16 has 8 bits of mantissa),
      // -0 against +0, negatives and a row shorter than a block included.
      std::vector<uint16_t> rows16(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) rows16[i] = ToBf16(i % 7 == 3 ? -0.0f : rows[i]);
      std::vector<float> widened(rows.size());
      WidenBf16(rows16.data(), rows16.size(), widened.data());
      hash->HashRows(rows16.data(), kRows, p.dim, codes16.data(), kRows, scratch);
      for (uint32_t r = 0; r < kRows; ++r) {
        hash->Hash(std::span(rows.data() + r * p.dim, p.dim), one, scratch);
        for (uint32_t t = 0; t < p.tables; ++t) {
          ASSERT_EQ(codes[t * kRows + r], one[t]) << family << " dim " << dim << " row " << r;
        }
        hash->Hash(std::span(widened.data() + r * p.dim, p.dim), one, scratch);
        for (uint32_t t = 0; t < p.tables; ++t) {
          ASSERT_EQ(codes16[t * kRows + r], one[t])
              << family << " bf16, dim " << dim << " row " << r;
        }
      }
    }
}

TEST(HashFamily, RejectsBadParameters) {
  HashParams p;
  p.k = 4;
  p.tables = 8;
  p.family = "nope";
  EXPECT_THROW(MakeHashFamily(p), ConfigError);
  p.family = "dwta";
  EXPECT_NO_THROW(MakeHashFamily(p));
  p.bin_size = 3;
  EXPECT_THROW(MakeHashFamily(p), ConfigError);
  p.bin_size = 8;
  p.k = 11;  // 33 bits
  EXPECT_THROW(MakeHashFamily(p), ConfigError);
}

}  // namespace
}  // namespace sparsebench
