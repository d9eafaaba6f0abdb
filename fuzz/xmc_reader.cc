// XMC ("N D L" header) and libsvm multi-label reader, then `data check`'s statistics.
// fuzz-options: -max_len=8192
#include <cstdint>
#include <string_view>

#include "datasets/data_error.h"
#include "datasets/line_blocks.h"
#include "datasets/reader.h"
#include "datasets/stats.h"
#include "fuzz/fuzz_util.h"

using namespace sparsebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const InputFile file("fuzz.txt", std::string_view(reinterpret_cast<const char*>(data), size));
  for (const Format format : {Format::kXmc, Format::kLibsvm}) {
    Dataset train;
    try {
      train = ReadDataset(file, format);
    } catch (const DataError&) {
      continue;
    }
    fuzz::CheckDataset(train);
    FUZZ_REQUIRE(train.rows() > 0 && train.has_features());
    const DatasetStats stats = ComputeStats(train);
    FUZZ_REQUIRE(stats.rows == train.rows() && stats.labels_seen <= train.num_labels);
    FormatStats(stats);
    // The same bytes as a test file, checked against the dimensions they gave: accepted, equal.
    ReadOptions as_test;
    as_test.num_features = train.num_features;
    as_test.num_labels = train.num_labels;
    const Dataset test = ReadDataset(file, format, as_test);
    FUZZ_REQUIRE(test.feature_ids == train.feature_ids && test.values == train.values);
    FUZZ_REQUIRE(test.label_ids == train.label_ids && test.num_labels == train.num_labels);
  }
  return 0;
}
