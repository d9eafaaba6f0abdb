// Every malformed input gives a DataError naming the file, the line and the reason.
#include <gtest/gtest.h>

#include <fstream>

#include "datasets/data_error.h"
#include "datasets/reader.h"
#include "datasets/tests/test_paths.h"

namespace sparsebench {
namespace {

using testing::DataFile;

struct BadFile {
  std::string name;
  Format format;
  uint64_t line;
  std::string reason_part;
};

void PrintTo(const BadFile& f, std::ostream* os) { *os << f.name; }

class ReaderErrors : public ::testing::TestWithParam<BadFile> {};

TEST_P(ReaderErrors, NamesFileLineAndReason) {
  const BadFile& bad = GetParam();
  const std::string path = DataFile(bad.name);
  try {
    ReadDataset(path, bad.format);
    FAIL() << "no error for " << bad.name;
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), bad.line) << e.what();
    EXPECT_NE(e.reason().find(bad.reason_part), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ReaderErrors,
    ::testing::Values(
        BadFile{"xmc_header_mismatch.txt", Format::kXmc, 1, "header says 3 rows"},
        BadFile{"xmc_feature_out_of_range.txt", Format::kXmc, 3, "feature id 10 out of range"},
        BadFile{"xmc_label_out_of_range.txt", Format::kXmc, 3, "label id 5 out of range"},
        BadFile{"xmc_negative_id.txt", Format::kXmc, 3, "expected feature id"},
        BadFile{"xmc_non_numeric.txt", Format::kXmc, 3, "expected feature id"},
        BadFile{"xmc_nan.txt", Format::kXmc, 3, "not finite"},
        BadFile{"xmc_inf.txt", Format::kXmc, 2, "not finite"},
        BadFile{"xmc_duplicate_feature.txt", Format::kXmc, 2, "duplicate feature id 1"},
        BadFile{"xmc_missing_value.txt", Format::kXmc, 3, "feature value"},
        BadFile{"xmc_missing_colon.txt", Format::kXmc, 3, "':'"},
        BadFile{"xmc_empty.txt", Format::kXmc, 0, "empty file"},
        BadFile{"xmc_bad_header.txt", Format::kXmc, 1, "expected header"},
        BadFile{"xmc_empty_line.txt", Format::kXmc, 3, "empty line"},
        BadFile{"xmc_binary.bin", Format::kXmc, 1, "header"},
        BadFile{"xmc_binary.bin", Format::kLibsvm, 1, "expected label id"},
        BadFile{"csv_unterminated.csv", Format::kCsv, 2, "unterminated quoted field"},
        BadFile{"csv_invalid_utf8.csv", Format::kCsv, 2, "invalid UTF-8"},
        BadFile{"csv_bad_label.csv", Format::kCsv, 2, "not a positive integer"},
        BadFile{"csv_zero_label.csv", Format::kCsv, 2, "not a positive integer"},
        BadFile{"csv_missing_field.csv", Format::kCsv, 2, "expected 2 fields"},
        BadFile{"csv_garbage_after_quote.csv", Format::kCsv, 2, "after a closing quote"},
        BadFile{"csv_empty.csv", Format::kCsv, 0, "empty file"},
        BadFile{"fasttext_no_label.ft", Format::kFastText, 2, "__label__"}));

TEST(ReaderErrors, BinaryGarbageIsRejectedByEveryReader) {
  for (Format f : {Format::kXmc, Format::kLibsvm, Format::kCsv, Format::kFastText}) {
    EXPECT_THROW(ReadDataset(DataFile("xmc_binary.bin"), f), DataError) << FormatName(f);
  }
}

TEST(ReaderErrors, MissingFileIsAnError) {
  EXPECT_THROW(ReadDataset("/nonexistent/train.txt", Format::kXmc), DataError);
}

TEST(ReaderErrors, TestFileCheckedAgainstTrainingDimensions) {
  ReadOptions options;
  options.num_features = 5;
  try {
    ReadDataset(DataFile("libsvm_valid.txt"), Format::kLibsvm, options);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(e.line(), 2u) << e.what();
  }
  options = {};
  options.num_labels = 1;
  EXPECT_THROW(ReadDataset(DataFile("csv_yelp.csv"), Format::kCsv, options), DataError);
}

// A single 100 MB line: a clear error (or a row), in bounded memory, never a crash.
TEST(ReaderErrors, HundredMegabyteLine) {
  testing::TempDir dir;
  const std::string xmc = dir.file("huge.txt");
  const std::string csv = dir.file("huge.csv");
  {
    std::string chunk(1 << 20, '7');
    std::ofstream out(xmc);
    out << "1 10 10\n0 ";
    for (int i = 0; i < 100; ++i) out << chunk;
    out << '\n';
    std::ofstream c(csv);
    c << "\"1\",\"";
    std::string words(1 << 20, 'a');
    for (int i = 0; i < 100; ++i) c << words;
    c << "\"\n";
  }
  try {
    ReadDataset(xmc, Format::kXmc);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(e.line(), 2u) << e.what();
  }
  Dataset d = ReadDataset(csv, Format::kCsv);
  EXPECT_EQ(d.text.at(0).size(), 100u << 20);
}

}  // namespace
}  // namespace sparsebench
