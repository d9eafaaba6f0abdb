// Every malformed input gives a DataError naming the file, the line and the reason.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <utility>

#include "datasets/data_error.h"
#include "datasets/line_blocks.h"
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
        BadFile{"fasttext_no_label.ft", Format::kFastText, 2, "__label__"},
        // Issue 13: ids whose + 1 would wrap D or L to 0, and dimensions beyond the cap.
        BadFile{"libsvm_max_label.txt", Format::kLibsvm, 1, "label id 4294967295 is too large"},
        BadFile{"libsvm_max_feature.txt", Format::kLibsvm, 1, "feature id 4294967295 is too large"},
        BadFile{"xmc_huge_labels.txt", Format::kXmc, 1, "L = 2147483648"},
        BadFile{"xmc_huge_features.txt", Format::kXmc, 1, "D = 4294967295"},
        BadFile{"csv_huge_label.csv", Format::kCsv, 2, "label 2147483648 is too large"},
        BadFile{"csv_label_over_cap.csv", Format::kCsv, 2, "label 1000001 is too large"}));

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

// Issue 13: only regular files open, and a FIFO without a writer does not block the open.
TEST(ReaderErrors, DirectoriesFifosAndDevicesAreRefusedAtOnce) {
  testing::TempDir dir;
  const std::string fifo = dir.file("fifo.txt");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (Format f : {Format::kXmc, Format::kLibsvm, Format::kCsv, Format::kFastText}) {
    try {
      ReadDataset(fifo, f);
      FAIL() << FormatName(f);
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), fifo);
      EXPECT_NE(e.reason().find("not a regular file"), std::string::npos) << e.what();
    }
    try {
      ReadDataset(dir.path(), f);
      FAIL() << FormatName(f);
    } catch (const DataError& e) {
      EXPECT_NE(e.reason().find("is a directory"), std::string::npos) << e.what();
    }
    EXPECT_THROW(ReadDataset("/dev/zero", f), DataError) << FormatName(f);
  }
}

// Issue 13: a UTF-8 byte-order mark at the start is skipped by every reader, as CSV tools do.
TEST(ReaderErrors, ByteOrderMarkIsSkipped) {
  Dataset xmc = ReadDataset(DataFile("xmc_bom.txt"), Format::kXmc);
  EXPECT_EQ(xmc.rows(), 2u);
  EXPECT_EQ(xmc.num_features, 10u);
  EXPECT_EQ(xmc.labels(0).size(), 2u);
  Dataset libsvm = ReadDataset(DataFile("libsvm_bom.txt"), Format::kLibsvm);
  EXPECT_EQ(libsvm.rows(), 2u);
  EXPECT_EQ(libsvm.labels(0)[0], 0u);
  EXPECT_EQ(libsvm.num_labels, 4u);
  Dataset csv = ReadDataset(DataFile("csv_bom.csv"), Format::kCsv);
  ASSERT_EQ(csv.rows(), 2u);
  EXPECT_EQ(csv.labels(0)[0], 0u);
  EXPECT_EQ(csv.text.at(0), "first");
  Dataset ft = ReadDataset(DataFile("fasttext_bom.ft"), Format::kFastText);
  ASSERT_EQ(ft.rows(), 2u);
  EXPECT_EQ(ft.label_names[0], "spam");
  // A BOM anywhere else is text, and a file of only a BOM is empty.
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_THROW(ReadDataset(InputFile("bom-only", bom), Format::kXmc), DataError);
  EXPECT_THROW(ReadDataset(InputFile("bom-only", bom), Format::kCsv), DataError);
  EXPECT_THROW(ReadDataset(InputFile("bom-twice", bom + bom + "1 2 3\n0 1:1\n"), Format::kXmc), DataError);
  try {  // the header alone, no final newline: the same error as without a BOM
    ReadDataset(InputFile("bom-header", bom + "1 2 3"), Format::kXmc);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(e.reason(), "no data rows") << e.what();
  }
}

// The in-memory entry point (fuzzing) reads exactly what the file does.
TEST(ReaderErrors, BytesInMemoryReadLikeTheFile) {
  for (auto [name, format] : {std::pair{"xmc_valid.txt", Format::kXmc}, std::pair{"libsvm_valid.txt", Format::kLibsvm},
                              std::pair{"csv_dbpedia.csv", Format::kCsv}, std::pair{"fasttext_valid.ft", Format::kFastText}}) {
    std::ifstream in(DataFile(name), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Dataset a = ReadDataset(DataFile(name), format), b = ReadDataset(InputFile(name, bytes), format);
    EXPECT_EQ(a.feature_ids, b.feature_ids) << name;
    EXPECT_EQ(a.label_ids, b.label_ids) << name;
    EXPECT_EQ(a.text.chars, b.text.chars) << name;
    EXPECT_EQ(a.num_labels, b.num_labels) << name;
  }
  try {
    ReadDataset(InputFile("memory.txt", "1 2 3\n0 5:1\n"), Format::kXmc);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()), "memory.txt:2: feature id 5 out of range (D = 2)");
  }
}

}  // namespace
}  // namespace sparsebench
