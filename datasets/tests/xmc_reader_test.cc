#include "datasets/xmc_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "datasets/tests/test_paths.h"

namespace sparsebench {
namespace {

using testing::DataFile;

TEST(XmcReader, ReadsRowsLabelsAndValues) {
  Dataset d = ReadSparseText(DataFile("xmc_valid.txt"), {});
  ASSERT_EQ(d.rows(), 4u);
  EXPECT_EQ(d.num_features, 10u);
  EXPECT_EQ(d.num_labels, 5u);
  EXPECT_EQ(d.nnz(), 8u);
  SparseRow r0 = d.row(0);
  EXPECT_EQ(std::vector<uint32_t>(r0.labels.begin(), r0.labels.end()), (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(std::vector<uint32_t>(r0.features.begin(), r0.features.end()),
            (std::vector<uint32_t>{1, 4, 9}));
  EXPECT_FLOAT_EQ(r0.values[1], 0.25f);
  EXPECT_FLOAT_EQ(d.row(1).values[0], 0.15f);
  EXPECT_TRUE(d.labels(2).empty());  // a row without labels starts with a space
  EXPECT_EQ(d.row(3).labels.size(), 3u);
}

TEST(XmcReader, AcceptsCrlfAndMissingFinalNewline) {
  Dataset d = ReadSparseText(DataFile("xmc_crlf_no_final_newline.txt"), {});
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_FLOAT_EQ(d.row(1).values[1], 2.0f);
  EXPECT_FLOAT_EQ(d.row(0).values[1], 0.25f);
}

TEST(XmcReader, LibsvmVariantInfersDimensions) {
  SparseReadOptions options;
  options.has_header = false;
  Dataset d = ReadSparseText(DataFile("libsvm_valid.txt"), options);
  EXPECT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.num_features, 14u);
  EXPECT_EQ(d.num_labels, 4u);
}

TEST(XmcReader, ThreadedReadEqualsSingleThreaded) {
  testing::TempDir dir;
  const std::string path = dir.file("many.txt");
  {
    std::ofstream out(path);
    const int rows = 60000;
    out << rows << " 1000 50\n";
    for (int i = 0; i < rows; ++i) {
      out << (i % 50) << ',' << ((i * 7 + 1) % 50 == i % 50 ? (i + 1) % 50 : (i * 7 + 1) % 50);
      for (int j = 0; j < 1 + i % 13; ++j) out << ' ' << (i * 31 + j * 77) % 1000 << ':' << 0.5 + j;
      out << '\n';
    }
  }
  // Features within a row can repeat for some i; the generator avoids that by construction:
  // (i*31 + j*77) mod 1000 is distinct for j < 13.
  Dataset one = ReadSparseText(path, {});
  SparseReadOptions threaded;
  threaded.threads = 4;
  Dataset four = ReadSparseText(path, threaded);
  EXPECT_EQ(one.row_offsets, four.row_offsets);
  EXPECT_EQ(one.feature_ids, four.feature_ids);
  EXPECT_EQ(one.values, four.values);
  EXPECT_EQ(one.label_offsets, four.label_offsets);
  EXPECT_EQ(one.label_ids, four.label_ids);
}

}  // namespace
}  // namespace sparsebench
