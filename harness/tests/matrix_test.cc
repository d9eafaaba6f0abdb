#include "harness/matrix.h"

#include <gtest/gtest.h>

#include <fstream>

#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"

namespace sparsebench {
namespace {

std::string Write(const testing::TempDir& dir, const std::string& text) {
  const std::string path = dir.file("m.toml");
  std::ofstream(path) << text;
  return path;
}

const char* kValid = R"(
name = "t"
threads = [1, 2]
repeats = 2
[[datasets]]
preset = "amazon670k"
scale = 0.01
target = 0.1
engines = [ { spec = "sparse" }, { name = "dense", spec = "blas", epochs = 2, batch = 64, lr = 0.01 } ]
[[datasets]]
name = "files"
train = "a.txt"
test = "b.txt"
metric = "accuracy"
engines = [ { spec = "fasttext" } ]
)";

TEST(Matrix, ReadsDatasetsEnginesAndSettings) {
  testing::TempDir dir;
  const Matrix m = ReadMatrix(Write(dir, kValid));
  ASSERT_EQ(m.datasets.size(), 2u);
  EXPECT_EQ(m.datasets[0].name, "amazon670k");
  EXPECT_EQ(m.datasets[0].engines[1].name, "dense");
  EXPECT_EQ(m.datasets[0].engines[1].batch, 64u);
  EXPECT_EQ(m.datasets[0].engines[0].name, "sparse");
  EXPECT_EQ(m.datasets[1].metric, "accuracy");
  EXPECT_EQ(m.threads, (std::vector<int>{1, 2}));
}

TEST(Matrix, CellsAreStableAndShardsPartitionThem) {
  testing::TempDir dir;
  const Matrix m = ReadMatrix(Write(dir, kValid));
  const std::vector<Cell> cells = ExpandCells(m);
  ASSERT_EQ(cells.size(), 2u * (2 + 1) * 2);
  EXPECT_EQ(cells[0].id(), "amazon670k/sparse/t1/r1");
  EXPECT_EQ(cells.back().id(), "files/fasttext/t2/r2");
  size_t total = 0;
  for (uint32_t s = 0; s < 3; ++s) {
    for (const Cell& c : ShardCells(cells, s, 3)) {
      EXPECT_EQ(c.index % 3, s);
      ++total;
    }
  }
  EXPECT_EQ(total, cells.size());
}

TEST(Matrix, MistakesNameTheFileAndLine) {
  testing::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[[datasets]]\npreset = \"yelp\"\nengines = [ { spec = \"sparse\", speed = 2 } ]\n", "unknown key 'speed'"},
      {"[[datasets]]\npreset = \"yelp\"\n", "lists no engines"},
      {"threads = [0]\n[[datasets]]\npreset = \"yelp\"\nengines = [ { spec = \"x\" } ]\n", "threads must be"},
      {"[[datasets]]\npreset = \"yelp\"\ntrain = \"a\"\nengines = [ { spec = \"x\" } ]\n", "either a preset"},
      {"[[datasets]\n", ""},
      {"colour = 1\n", "unknown key 'colour'"},
  };
  for (const auto& [text, reason] : cases) {
    const std::string path = Write(dir, text);
    try {
      ReadMatrix(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }
}

TEST(Matrix, ShippedMatricesParse) {
  for (const char* name : {"quick", "default", "full"}) {
    const Matrix m = ReadMatrix(std::string(SPARSEBENCH_SOURCE_DIR) + "/harness/matrices/" + name + ".toml");
    EXPECT_FALSE(ExpandCells(m).empty()) << name;
  }
}

}  // namespace
}  // namespace sparsebench
