#include "datasets/text_readers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

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

// Issue 13: the cap on class numbers is exactly kMaxTextClasses (one past it is refused by
// ReaderErrors' csv_label_over_cap.csv), so one large label costs at most a million names.
TEST(ZhangCsv, LabelAtTheCapReads) {
  Dataset d = ReadZhangCsv(DataFile("csv_label_at_cap.csv"));
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.num_labels, kMaxTextClasses);
  EXPECT_EQ(d.labels(1)[0], kMaxTextClasses - 1);
  EXPECT_EQ(d.label_names.size(), size_t{kMaxTextClasses});
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

// `predict --csv` reads stdin as a stream: records one at a time, a long one dropped as it
// comes (memory stays bounded) and reported, the others answered; a BOM skipped; NUL fatal.
std::vector<CsvStreamRecord> StreamRecords(const std::string& input, uint64_t max_bytes,
                                           std::vector<std::string>& texts) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < input.size()) {
      const ssize_t n = ::write(fds[1], input.data() + done, std::min<size_t>(input.size() - done, 4096));
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  std::vector<CsvStreamRecord> records;
  CsvStreamOptions options;
  options.max_record_bytes = max_bytes;
  try {
    ReadZhangCsvStream(fds[0], "<stdin>", options, [&](const CsvStreamRecord& r) {
      texts.emplace_back(r.text);
      records.push_back({r.line, {}, r.too_long});
    });
  } catch (...) {
    ::close(fds[0]);
    writer.join();
    throw;
  }
  ::close(fds[0]);
  writer.join();
  return records;
}

TEST(ZhangCsv, StreamReadsRecordsOneAtATime) {
  std::vector<std::string> texts;
  const std::string input = "\xEF\xBB\xBF\"1\",\"short\"\n\"x\",\"" + std::string(100000, 'a') +
                            "\"\n\"2\",\"two\nlines\"\n\"3\",\"last\"";
  const auto records = StreamRecords(input, 1000, texts);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(texts[0], "short");
  EXPECT_TRUE(records[1].too_long);
  EXPECT_EQ(texts[1], "");
  EXPECT_EQ(records[2].line, 3u);
  EXPECT_EQ(texts[2], "two\nlines");
  EXPECT_EQ(records[3].line, 5u);
  EXPECT_EQ(texts[3], "last");
  texts.clear();
  try {
    StreamRecords("\"1\",\"a\"\n\"1\",\"" + std::string(10, '\0') + "\"\n", 1000, texts);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(e.line(), 2u) << e.what();
    EXPECT_NE(e.reason().find("NUL"), std::string::npos) << e.what();
  }
  EXPECT_THROW(StreamRecords("\"1\",\"unterminated\n", 1000, texts), DataError);
  EXPECT_TRUE(StreamRecords("", 1000, texts).empty());
}

}  // namespace
}  // namespace sparsebench
