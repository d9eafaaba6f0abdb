// fastText-format reader (training file, then the same bytes as a test file) and featurizer.
// fuzz-options: -max_len=8192
#include <cstdint>
#include <set>
#include <string_view>

#include "datasets/data_error.h"
#include "datasets/featurizer.h"
#include "datasets/line_blocks.h"
#include "datasets/text_readers.h"
#include "fuzz/fuzz_util.h"

using namespace sparsebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const InputFile file("fuzz.ft", std::string_view(reinterpret_cast<const char*>(data), size));
  Dataset train;
  try {
    train = ReadFastTextFile(file);
  } catch (const DataError&) {
    return 0;
  }
  fuzz::CheckDataset(train);
  FUZZ_REQUIRE(train.has_text() && train.num_labels == train.label_names.size());
  const std::set<std::string> names(train.label_names.begin(), train.label_names.end());
  FUZZ_REQUIRE(names.size() == train.label_names.size() && !names.contains(""));
  TextReadOptions as_test;
  as_test.label_names = train.label_names;
  const Dataset test = ReadFastTextFile(file, as_test);
  FUZZ_REQUIRE(test.label_ids == train.label_ids && test.text.chars == train.text.chars);
  FeaturizerOptions options;
  options.buckets = 1 + static_cast<uint32_t>(size % 89) * 17;
  FeaturizeDataset(train, Featurizer(options), 1);
  fuzz::CheckFeaturized(train, options.buckets);
  return 0;
}
