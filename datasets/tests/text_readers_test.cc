#include "datasets/text_readers.h"

#include <gtest/gtest.h>

#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"

namespace sparsebench {
namespace {

using testing::DataFile;

TEST(ZhangCsv, UnescapesQuotesAndNewlines) {
  Dataset d = ReadZhangCsv(DataFile("csv_yelp.csv"));
  ASSERT_EQ(d.rows(), 3u);
  EXPECT_EQ(d.num_labels, 2u);
  EXPECT_EQ(d.labels(0)[0], 0u);
  EXPECT_EQ(d.labels(1)[0], 1u);
  EXPECT_EQ(d.text.at(0), "The food was \"not good\" at all.\nNever again.");
  EXPECT_EQ(d.text.at(2), "Caf\\u00e9 closed");  // other backslashes stay as they are
  EXPECT_EQ(d.label_names, (std::vector<std::string>{"1", "2"}));
}

TEST(ZhangCsv, ThreeColumnsJoinTitleAndContent) {
  Dataset d = ReadZhangCsv(DataFile("csv_dbpedia.csv"));
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.num_labels, 14u);
  EXPECT_EQ(d.labels(1)[0], 13u);
  EXPECT_EQ(d.text.at(0).substr(0, 19), "E. D. Abbott Ltd | ");
  EXPECT_EQ(d.text.at(1), "Some Book | A \"famous\" book,\nwith a real newline inside quotes.");
}

TEST(ZhangCsv, CrlfUtf8AndMissingFinalNewline) {
  Dataset d = ReadZhangCsv(DataFile("csv_crlf_utf8.csv"));
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.text.at(0), "UTF-8 caf\xc3\xa9 na\xc3\xafve \xe2\x82\xac");
  EXPECT_EQ(d.text.at(1), "last line, no newline");
}

TEST(FastText, LabelsAndText) {
  Dataset d = ReadFastTextFile(DataFile("fasttext_valid.ft"));
  ASSERT_EQ(d.rows(), 3u);
  EXPECT_EQ(d.label_names, (std::vector<std::string>{"spam", "ham", "work"}));
  EXPECT_EQ(d.labels(1).size(), 2u);
  EXPECT_EQ(d.text.at(1), "meeting at 10");
  EXPECT_EQ(d.text.at(2), "last");
}

TEST(FastText, TestFileUsesTrainingLabels) {
  TextReadOptions options;
  options.label_names = {"ham", "spam", "work"};
  Dataset d = ReadFastTextFile(DataFile("fasttext_valid.ft"), options);
  EXPECT_EQ(d.labels(0)[0], 1u);
  options.label_names = {"ham"};
  EXPECT_THROW(ReadFastTextFile(DataFile("fasttext_valid.ft"), options), DataError);
}

}  // namespace
}  // namespace sparsebench
