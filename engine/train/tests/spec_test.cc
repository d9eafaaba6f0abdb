#include "engine/api/spec.h"

#include <gtest/gtest.h>

#include "engine/api/engine_error.h"
#include "engine/train/sparse_learner.h"

namespace sparsebench {
namespace {

TEST(Spec, CanonicalStringRoundTrips) {
  const DataShape shape{1000, 50000};
  SparseConfig c = SparseConfig::Parse("sparse:hash=srp,l=32,hidden=64", shape);
  EXPECT_EQ(c.hidden, 64u);
  EXPECT_EQ(c.selector.hash.family, "srp");
  EXPECT_EQ(c.ActiveTarget(50000), 250u);  // default out_sparsity 0.005 for many labels
  const std::string canonical = c.Canonical();
  EXPECT_EQ(SparseConfig::Parse(canonical, shape).Canonical(), canonical);
  EXPECT_EQ(SparseConfig::Parse("sparse", {1000, 14}).Canonical(),
            "sparse:hidden=128,out_sparsity=1,moments=fp32,weights=fp32");
  // A sparse layer keeps its weights and moments in bf16 unless told otherwise.
  EXPECT_TRUE(c.bf16_weights && c.bf16_moments);
  EXPECT_NE(canonical.find(",moments=bf16,weights=bf16,"), std::string::npos);
  EXPECT_FALSE(SparseConfig::Parse("sparse:moments=fp32", shape).bf16_weights);
  // Random neurons in runs of 16 beside the tables; the control draws them one by one.
  EXPECT_NE(canonical.find(",run=16"), std::string::npos);
  const SparseConfig control = SparseConfig::Parse("sparse:hash=random", shape);
  EXPECT_EQ(control.selector.random_run, 1u);
  const SparseConfig runs = SparseConfig::Parse("sparse:hash=random,run=16", shape);
  EXPECT_EQ(runs.selector.random_run, 16u);
  EXPECT_EQ(SparseConfig::Parse(runs.Canonical(), shape).Canonical(), runs.Canonical());
  EXPECT_THROW(SparseConfig::Parse("sparse:run=0", shape), ConfigError);
  // The read limit is resolved from the tables unless given.
  EXPECT_NE(canonical.find(",reads="), std::string::npos);
  EXPECT_GT(c.selector.reads, 0u);
  EXPECT_EQ(SparseConfig::Parse("sparse:reads=500", shape).selector.reads, 500u);
  EXPECT_THROW(SparseConfig::Parse("sparse:reads=0", shape), ConfigError);
}

// Auto probes may exceed 32 (DWTA with k = 32 one-bit hashes: up to 48); the canonical spec
// that records them must parse again (a fuzz finding). Only DWTA has probes.
TEST(Spec, ResolvedProbesRoundTrip) {
  const DataShape shape{16, 1100};
  const SparseConfig c = SparseConfig::Parse("sparse:hidden=4,out_sparsity=0.9,bin=2,k=32", shape);
  EXPECT_GT(c.selector.probes, 32u);
  const std::string canonical = c.Canonical();
  EXPECT_EQ(SparseConfig::Parse(canonical, shape).Canonical(), canonical);
  EXPECT_THROW(SparseConfig::Parse("sparse:bin=2,k=32,probes=529", shape), ConfigError);
  EXPECT_EQ(
      SparseConfig::Parse("sparse:hidden=4,out_sparsity=0.9,hash=srp,k=32", shape).selector.probes,
      0u);
  EXPECT_THROW(SparseConfig::Parse("sparse:hash=srp,probes=1", shape), ConfigError);
}

// An out_sparsity below 1 whose active target still covers every output (1100 x 0.9999
// rounds up to 1100) trains dense and resolves no LSH setting; its canonical spec keeps them
// auto and parses again (a fuzz finding: it printed k=0, l=0, probes=4294967295).
TEST(Spec, UnresolvedSettingsRoundTripAsAuto) {
  const DataShape shape{16, 1100};
  for (const char* text : {"sparse:out_sparsity=0.9999", "sparse:out_sparsity=0.9999,hash=srp"}) {
    const SparseConfig c = SparseConfig::Parse(text, shape);
    EXPECT_EQ(c.ActiveTarget(shape.labels), shape.labels);
    const std::string canonical = c.Canonical();
    EXPECT_NE(canonical.find(",k=auto,l=auto"), std::string::npos) << canonical;
    EXPECT_NE(canonical.find(",probes=auto"), std::string::npos) << canonical;
    EXPECT_EQ(SparseConfig::Parse(canonical, shape).Canonical(), canonical);
  }
}

TEST(Spec, RejectsMistakes) {
  const DataShape shape{10, 10};
  EXPECT_THROW(SparseConfig::Parse("sparse:hiden=3", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("sparse:hidden=0", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("sparse:hidden=abc", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("sparse:k", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("sparse:k=1,k=2", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("sparse:select=best", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("dense:hidden=3", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse(":x=1", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("sparse:weights=fp16", shape), ConfigError);
  EXPECT_THROW(SparseConfig::Parse("sparse:moments=fp32,weights=bf16", shape), ConfigError);
}

}  // namespace
}  // namespace sparsebench
