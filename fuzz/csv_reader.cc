// Zhang CSV reader (file and stream) and the text featurizer.
// fuzz-options: -max_len=8192
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/data_error.h"
#include "datasets/featurizer.h"
#include "datasets/line_blocks.h"
#include "datasets/text_readers.h"
#include "fuzz/fuzz_util.h"

using namespace sparsebench;

namespace {

// The input as a stream: a memory file rewound each time (no pipe, no thread).
int StreamOf(const uint8_t* data, size_t size) {
  static const int fd = ::memfd_create("fuzz-csv", MFD_CLOEXEC);
  FUZZ_REQUIRE(fd >= 0);
  FUZZ_REQUIRE(::ftruncate(fd, 0) == 0);
  FUZZ_REQUIRE(size == 0 || ::pwrite(fd, data, size, 0) == static_cast<ssize_t>(size));
  FUZZ_REQUIRE(::lseek(fd, 0, SEEK_SET) == 0);
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Dataset d;
  bool read = true;
  try {
    d = ReadZhangCsv(InputFile("fuzz.csv", bytes));
  } catch (const DataError&) {
    read = false;
  }
  if (read) {
    fuzz::CheckDataset(d);
    FUZZ_REQUIRE(d.has_text() && d.label_ids.size() == d.rows() && d.num_labels <= kMaxTextClasses);
    FeaturizerOptions options;
    options.buckets = 1 + static_cast<uint32_t>(size % 97) * 13;
    options.bigrams = size % 2 == 0;
    options.binary = size % 3 == 0;
    FeaturizeDataset(d, Featurizer(options), 1);
    fuzz::CheckFeaturized(d, options.buckets);
  }
  // The stream reader (predict --csv) on the same bytes: where the file read, it reads the
  // same records; a record over the limit comes as too long, unstored.
  std::vector<std::string> texts;
  bool streamed = true;
  CsvStreamOptions stream;
  stream.max_record_bytes = 64;
  try {
    ReadZhangCsvStream(StreamOf(data, size), "<stdin>", stream, [&](const CsvStreamRecord& record) {
      FUZZ_REQUIRE(!record.too_long || record.text.empty());
      texts.push_back(record.too_long ? std::string("\x01too long") : std::string(record.text));
    });
  } catch (const DataError&) {
    streamed = false;
  }
  if (read) {
    FUZZ_REQUIRE(streamed && texts.size() == d.rows());
    for (size_t r = 0; r < texts.size(); ++r) FUZZ_REQUIRE(texts[r] == "\x01too long" || texts[r] == d.text.at(r));
  }
  return 0;
}
