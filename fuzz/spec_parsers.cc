// Engine spec strings: Spec, SparseConfig, TextConfig and DenseSpec parse what they accept
// into a canonical spec that parses back to itself; a small sparse engine is built from
// each accepted sparse spec (hash families, tables and their size limits). The input is also
// a command line (fuzz/command_line.h).
// fuzz-options: -max_len=512
#include <cstdint>
#include <cstdio>
#include <string>

#include "baselines/dense_spec.h"
#include "engine/api/engine_error.h"
#include "engine/api/spec.h"
#include "engine/train/sparse_learner.h"
#include "engine/train/text_learner.h"
#include "fuzz/command_line.h"
#include "fuzz/fuzz_util.h"

using namespace sparsebench;

namespace {

// The canonical form of `parse(canonical)`; a canonical spec that does not parse again is a
// finding named as such, not an escaped exception.
template <typename Parse>
std::string Reparsed(const std::string& canonical, Parse parse) {
  try {
    return parse(canonical).Canonical();
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "canonical spec '%s' does not parse: %s\n", canonical.c_str(), e.what());
    FUZZ_REQUIRE(!"a canonical spec parses again");
  }
  return {};
}

void Sparse(const std::string& text) {
  const DataShape shape{16, 1100};  // more than 1024 outputs: LSH selection by default
  SparseConfig config;
  try {
    config = SparseConfig::Parse(text, shape);
  } catch (const ConfigError&) {
    return;
  }
  const std::string canonical = config.Canonical();
  const auto parse = [&](const std::string& t) { return SparseConfig::Parse(t, shape); };
  FUZZ_REQUIRE(Reparsed(canonical, parse) == canonical);
  // Building costs k x l hashes per output neuron: only small settings, to keep the pace.
  if (config.hidden > 16 || config.selector.hash.k * config.selector.hash.tables > 256) return;
  try {
    TrainOptions options;
    options.batch = 4;
    const SparseLearner learner(config, shape, options);
    const uint32_t features[] = {0, 7, 15};
    const float values[] = {0.5f, 1.0f, -2.0f};
    const TopK top = learner.PredictRow(SparseRow{features, values, {}}, 5);
    FUZZ_REQUIRE(top.k == 5 && top.ids.size() == 5);
    for (uint32_t id : top.ids) FUZZ_REQUIRE(id < shape.labels);
    SparseConfig::Parse(learner.spec(), shape);  // the resolved spec parses too
  } catch (const ConfigError&) {
  }
}

void Text(const std::string& text) {
  TextConfig config;
  try {
    config = TextConfig::Parse(text);
  } catch (const ConfigError&) {
    return;
  }
  const std::string canonical = config.Canonical();
  FUZZ_REQUIRE(Reparsed(canonical, TextConfig::Parse) == canonical);
  config.Resolve(1000, 20);
  const std::string resolved = config.Canonical();
  FUZZ_REQUIRE(Reparsed(resolved, TextConfig::Parse) == resolved);
  try {
    SparseConfig::Parse(config.SparseSpec(), DataShape{config.featurizer.buckets, 20});
  } catch (const ConfigError&) {
    FUZZ_REQUIRE(!"a resolved text spec gives a sparse spec that does not parse");
  }
}

void Dense(const std::string& text) {
  for (const char* family : {"blas", "torch"}) {
    try {
      const DenseSpec spec = DenseSpec::Parse(text, family);
      const auto parse = [&](const std::string& t) { return DenseSpec::Parse(t, family); };
      FUZZ_REQUIRE(Reparsed(spec.Canonical(), parse) == spec.Canonical());
    } catch (const ConfigError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    Spec spec = Spec::Parse(text);
    FUZZ_REQUIRE(!spec.family().empty());
    spec.String("hidden", "");
    spec.Double("out_sparsity", 1, 0, 1);
    spec.Int("k", 1, 1, 32);
    spec.Finish();
  } catch (const ConfigError&) {
  }
  Sparse(text);
  Text(text);
  Dense(text);
  fuzz::ParseCommandLine(text);
  return 0;
}
