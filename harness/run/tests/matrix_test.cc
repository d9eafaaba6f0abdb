#include "harness/run/matrix.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/engines.h"

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
  const Matrix m = ReadMatrix(Write(dir, kValid), BuiltinEngines(), /*check_files=*/false);
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
  const Matrix m = ReadMatrix(Write(dir, kValid), BuiltinEngines(), /*check_files=*/false);
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
      ReadMatrix(path, BuiltinEngines(), false);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }
}

TEST(Matrix, ShippedMatricesParse) {
  size_t shipped = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SPARSEBENCH_SOURCE_DIR) +
                                                               "/harness/matrices")) {
    if (entry.path().extension() != ".toml") continue;
    // default.toml's e-mails are fetched by tools/bench: their files are not looked for here.
    const Matrix m = ReadMatrix(entry.path().string(), BuiltinEngines(), false);
    EXPECT_FALSE(ExpandCells(m).empty()) << entry.path();
    ++shipped;
  }
  EXPECT_GE(shipped, 8u);
}

// Issue 13: values that were ignored, truncated, switched a limit off, or only failed when
// their cell ran (or aborted the run without a file and line) are refused at load, with the
// file and the line of the offending value.
TEST(Matrix, ValuesThatWereIgnoredOrMisreadAreRefusedAtLoadWithFileAndLine) {
  testing::TempDir dir;
  const std::string train = dir.file("train.txt");
  std::ofstream(train) << "1 2 2\n0 0:1\n";
  std::filesystem::create_directory(dir.file("adir"));
  const std::string head = "name = \"t\"\n";                                  // line 1
  const std::string preset = "[[datasets]]\npreset = \"yelp\"\nscale = 0.01\n";  // lines 2-4 (after head)
  auto engines = [](const std::string& engine) { return "engines = [ " + engine + " ]\n"; };
  struct Case {
    std::string text, reason;
    uint64_t line;
  };
  const std::string ok_engine = "{ spec = \"blas\" }";
  const std::vector<Case> cases = {
      {head + "threads = 1\n" + preset + engines(ok_engine), "threads must be a list", 2},
      {head + "threads = []\n" + preset + engines(ok_engine), "threads lists no thread counts", 2},
      {head + "threads = [2, 1, 2]\n" + preset + engines(ok_engine), "threads lists 2 twice", 2},
      {head + "repeats = 4294967297\n" + preset + engines(ok_engine),
       "'repeats' must be an integer from 1 to 1000", 2},
      {head + "repeats = 1000000000\n" + preset + engines(ok_engine),
       "'repeats' must be an integer from 1 to 1000", 2},
      {head + "repeats = 1e9\n" + preset + engines(ok_engine),
       "'repeats' must be an integer from 1 to 1000", 2},
      {head + "repeats = true\n" + preset + engines(ok_engine), "'repeats' must be an integer", 2},
      {head + "max_seconds = 0\n" + preset + engines(ok_engine),
       "'max_seconds' must be a number above 0", 2},
      {head + "max_seconds = -5\n" + preset + engines(ok_engine),
       "'max_seconds' must be a number above 0", 2},
      {head + "max_seconds = nan\n" + preset + engines(ok_engine),
       "'max_seconds' must be a number above 0", 2},
      {head + "max_seconds = inf\n" + preset + engines(ok_engine),
       "'max_seconds' must be a number above 0", 2},
      {head + "max_memory_mb = -1\n" + preset + engines(ok_engine),
       "'max_memory_mb' must be a number above 0", 2},
      {head + preset + engines("{ spec = \"blas\", epochs = 4294967297 }"),
       "'epochs' must be an integer from 1 to 10000", 5},
      {head + preset + engines("{ spec = \"blas\", lr = inf }"), "'lr' must be a number from 1e-07",
       5},
      {head + preset + engines("{ spec = \"blas\", lr = 1e-300 }"),
       "'lr' must be a number from 1e-07", 5},
      {head + preset + engines("{ spec = \"blas\", batch = 0 }"),
       "'batch' must be an integer from 1", 5},
      {head + preset + engines("{ spec = \"blas\", lr_half_life = -1 }"),
       "'lr_half_life' must be an integer from 0", 5},
      {head + preset + engines("{ spec = \"blas\", lr_half_life = 0.5 }"),
       "'lr_half_life' must be an integer from 0", 5},
      {head + preset + engines("{ spec = \"nosuch\" }"), "unknown engine family 'nosuch'", 5},
      {head + preset + engines("{ spec = \"blas\", train_budget_seconds = -1 }"),
       "'train_budget_seconds' must be a number from 0", 5},
      {head + "eval_every_seconds = nan\n" + preset + engines(ok_engine),
       "'eval_every_seconds' must be a number from 0", 2},
      {head + "max_seconds = 100\n" + preset +
           engines("{ spec = \"blas\", train_budget_seconds = 100 }"),
       "engine 'yelp/blas' has a training budget of 100 s, not below max_seconds (100)", 3},
      {head + "max_seconds = 100\ntrain_budget_seconds = 120\n" + preset + engines(ok_engine),
       "engine 'yelp/blas' has a training budget of 120 s", 4},
      {head + preset + engines("{ spec = \"sparse:hidden=-1\" }"), "engine spec 'sparse:hidden=-1'",
       5},
      {head + preset + engines("{ spec = \"fasttext:colour=red\" }"),
       "engine spec 'fasttext:colour=red'", 5},
      {head + preset + engines("{ spec = \"blas\" },\n  { spec = \"blas:hidden=8\" }"),
       "two engines named 'blas'", 6},
      {head + "[[datasets]]\npreset = \"nope\"\n" + engines(ok_engine),
       "unknown preset 'nope' (known: amazon670k, yelp, dbpedia)", 3},
      {head + "[[datasets]]\npreset = \"yelp\"\nscale = 1e9\n" + engines(ok_engine),
       "'scale' must be a number above 0 and at most 100", 4},
      {head + "[[datasets]]\npreset = \"yelp\"\nformat = \"csv\"\n" + engines(ok_engine),
       "format is for train and test files", 4},
      {head + "[[datasets]]\ntrain = \"" + train + "\"\ntest = \"" + train +
           "\"\nformat = \"weird\"\n" + engines(ok_engine),
       "unknown format 'weird'", 5},
      {head + "[[datasets]]\ntrain = \"" + dir.file("missing.txt") + "\"\ntest = \"" + train +
           "\"\n" + engines(ok_engine),
       "train file '" + dir.file("missing.txt") + "' does not exist", 3},
      {head + "[[datasets]]\ntrain = \"" + train + "\"\ntest = \"" + dir.file("adir") + "\"\n" +
           engines(ok_engine),
       "is not a regular file", 4},
      {head + "[[datasets]]\nname = \"a\\nb\"\npreset = \"yelp\"\n" + engines(ok_engine),
       "contains a control character", 3},
      {head + "[[datasets]]\nname = \"a/b\"\npreset = \"yelp\"\n" + engines(ok_engine),
       "contains '/'", 3},
      {head + "[[datasets]]\nname = \"a__b\"\npreset = \"yelp\"\n" +
           engines("{ name = \"c\", spec = \"blas\" }") +
           "[[datasets]]\nname = \"a\"\npreset = \"yelp\"\n" +
           engines("{ name = \"b__c\", spec = \"blas\" }"),
       "would share the file names a__b__c__*", 6},
  };
  for (const Case& c : cases) {
    const std::string path = Write(dir, c.text);
    try {
      ReadMatrix(path, BuiltinEngines());
      ADD_FAILURE() << "accepted:\n" << c.text;
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), c.line) << e.what() << "\n" << c.text;
      EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what() << "\nexpected: " << c.reason;
    }
  }
}

// Issue 13: repeats x engines x threads drove the allocation of the cell list unchecked.
TEST(Matrix, CellCountIsBounded) {
  testing::TempDir dir;
  std::string text = "repeats = 1000\nthreads = [1, 2]\n[[datasets]]\npreset = \"yelp\"\nengines = [\n";
  for (int i = 0; i < 51; ++i) text += "  { name = \"e" + std::to_string(i) + "\", spec = \"blas\" },\n";
  text += "]\n";
  const std::string path = Write(dir, text);
  try {
    ReadMatrix(path, BuiltinEngines());
    ADD_FAILURE() << "accepted 102000 cells";
  } catch (const DataError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(std::string(e.what()).find("expands to 102000 cells"), std::string::npos) << e.what();
  }
  EXPECT_EQ(CountCells(ReadMatrix(Write(dir, "[[datasets]]\npreset = \"yelp\"\nengines = [ { spec = \"blas\" } ]\n"), BuiltinEngines()), 7), 7u);
}

TEST(Matrix, ContentHashTellsMatricesApart) {
  testing::TempDir dir;
  const std::string text = "[[datasets]]\npreset = \"yelp\"\nengines = [ { spec = \"blas\" } ]\n";
  const std::string a = ReadMatrix(Write(dir, text), BuiltinEngines()).content_hash;
  EXPECT_EQ(a.rfind("xxh64:", 0), 0u) << a;
  EXPECT_EQ(ReadMatrix(Write(dir, text), BuiltinEngines()).content_hash, a);
  EXPECT_NE(ReadMatrix(Write(dir, text + "# edited\n"), BuiltinEngines()).content_hash, a);
}

}  // namespace
}  // namespace sparsebench

namespace sparsebench {
namespace {

TEST(Matrix, AnEngineMayRunMoreRepeatsThanTheMatrix) {
  testing::TempDir dir;
  const Matrix m = ReadMatrix(Write(dir, R"(
name = "t"
[[datasets]]
preset = "amazon670k"
scale = 0.01
holdout = 0.1
patience = 2
engines = [ { spec = "sparse", repeats = 3 }, { spec = "blas" } ]
)"),
                              BuiltinEngines(), false);
  EXPECT_EQ(m.datasets[0].patience, 2u);
  EXPECT_DOUBLE_EQ(m.datasets[0].holdout, 0.1);
  std::vector<std::string> ids;
  for (const Cell& c : ExpandCells(m)) ids.push_back(c.id());
  EXPECT_EQ(ids, (std::vector<std::string>{"amazon670k/sparse/t2/r1", "amazon670k/blas/t2/r1",
                                           "amazon670k/sparse/t2/r2", "amazon670k/sparse/t2/r3"}));
  EXPECT_EQ(CountCells(m, m.repeats), 4u);
}

TEST(Matrix, ThePlateauRuleNeedsBothHoldoutAndPatience) {
  testing::TempDir dir;
  for (const char* keys : {"holdout = 0.1", "patience = 2", "holdout = 0\npatience = 2",
                           "holdout = 0.6\npatience = 2"}) {
    const std::string text = std::string("name = \"t\"\n[[datasets]]\npreset = \"amazon670k\"\n") +
                             keys + "\nengines = [ { spec = \"sparse\" } ]\n";
    EXPECT_THROW(ReadMatrix(Write(dir, text), BuiltinEngines(), false), DataError) << keys;
  }
}

}  // namespace
}  // namespace sparsebench
