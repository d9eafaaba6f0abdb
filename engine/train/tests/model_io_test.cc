#include "engine/model/model_io.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>

#include "datasets/data_error.h"
#include "datasets/line_blocks.h"
#include "datasets/tests/test_paths.h"
#include "engine/api/engine_error.h"
#include "engine/api/tests/test_util.h"
#include "engine/lsh/hash_family.h"
#include "engine/train/sparse_learner.h"
#include "engine/train/text_learner.h"

namespace sparsebench {
namespace {

class ModelFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = testing::RandomDataset(300, 50, 2000, 4);
    TrainOptions options;
    options.batch = 32;
    options.lr = 0.01f;
    learner_ = std::make_unique<SparseLearner>(
        SparseConfig::Parse("sparse:hidden=16,out_sparsity=0.02,l=8,k=3", {50, 2000}),
        DataShape{50, 2000}, options);
    learner_->Train(data_, {});
    path_ = dir_.file("model.spb");
    learner_->Save(path_);
  }

  void Corrupt(std::streamoff offset) {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(offset);
    char c;
    f.get(c);
    f.seekp(offset);
    f.put(static_cast<char>(c ^ 0x5a));
  }

  testing::TempDir dir_;
  Dataset data_;
  std::unique_ptr<SparseLearner> learner_;
  std::string path_;
};

TEST_F(ModelFiles, ReloadedModelPredictsIdentically) {
  SparseLearner loaded(path_, TrainOptions{});
  EXPECT_EQ(loaded.spec(), learner_->spec());
  TopK a = learner_->Predict(data_, 5), b = loaded.Predict(data_, 5);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.scores, b.scores);
}

TEST_F(ModelFiles, CorruptTruncatedAndForeignFilesAreRejected) {
  Corrupt(static_cast<std::streamoff>(std::filesystem::file_size(path_) / 2));
  EXPECT_THROW(LoadModel(path_), DataError);
  learner_->Save(path_);
  std::filesystem::resize_file(path_, std::filesystem::file_size(path_) - 100);
  EXPECT_THROW(LoadModel(path_), DataError);
  EXPECT_THROW(LoadModel(testing::DataFile("xmc_valid.txt")), DataError);
  EXPECT_THROW(LoadModel(dir_.file("missing.spb")), DataError);
  std::ofstream(dir_.file("empty.spb")).close();
  EXPECT_THROW(LoadModel(dir_.file("empty.spb")), DataError);
}

TEST_F(ModelFiles, ErrorNamesTheFile) {
  Corrupt(3);
  try {
    LoadModel(path_);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), path_);
  }
}

// A model file as SaveModel lays it out, field by field, with a valid checksum: the checksum
// catches accidents, not a crafted file, so these test the checks behind it (issue 13).
class ModelBytes {
 public:
  ModelBytes() {
    bytes_.append("SPBMODEL");
    Pod<uint32_t>(1);
  }
  template <typename T>
  ModelBytes& Pod(T value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  ModelBytes& Str(const std::string& s) {
    Pod<uint64_t>(s.size());
    bytes_ += s;
    return *this;
  }
  ModelBytes& Floats(uint64_t n, float value = 0.1f) {
    Pod<uint64_t>(n);
    for (uint64_t i = 0; i < n; ++i) Pod(value);
    return *this;
  }
  ModelBytes& Raw(const std::string& s) {
    bytes_ += s;
    return *this;
  }
  std::string Finish() const {
    std::string out = bytes_;
    const uint64_t checksum = XXH64(out.data(), out.size(), 0);
    out.append(reinterpret_cast<const char*>(&checksum), sizeof checksum);
    return out;
  }

 private:
  std::string bytes_;
};

// The whole layout: spec, `labels` label names, then an in x hidden x out network.
ModelBytes Model(const std::string& spec, uint32_t labels, uint32_t in, uint32_t hidden,
                 uint32_t out) {
  ModelBytes m;
  m.Str(spec).Pod<uint64_t>(labels);
  for (uint32_t l = 0; l < labels; ++l) m.Str("label").Str("class" + std::to_string(l));
  m.Pod(in).Pod(hidden).Pod(out);
  m.Floats(uint64_t{in} * hidden).Floats(hidden).Floats(uint64_t{out} * hidden).Floats(out);
  return m;
}

const std::string kTextSpec =
    "text:buckets=20,bigrams=1,binary=0,hidden=16,out_sparsity=1,lr=0.005,lr_decay=0.5,epochs=1";

std::string WriteFile(const testing::TempDir& dir, const std::string& name,
                      const std::string& bytes) {
  const std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const DataError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a DataError: ") + e.what();
  }
  return "no error";
}

TEST(CraftedModels, ConsistentFilesLoadAndPredict) {
  testing::TempDir dir;
  const std::string text = WriteFile(dir, "text.spb", Model(kTextSpec, 10, 20, 16, 10).Finish());
  const TextLearner learner(text, TrainOptions{});
  EXPECT_EQ(learner.label_names().size(), 10u);
  EXPECT_EQ(learner.PredictText("any words at all", 3).k, 3u);
  const std::string sparse = WriteFile(
      dir, "sparse.spb", Model("sparse:hidden=16,out_sparsity=0.5", 0, 20, 16, 10).Finish());
  const SparseLearner loaded(sparse, TrainOptions{});
  EXPECT_EQ(loaded.network().shape.hidden_dim, 16u);
}

// Issue 13: a spec whose hidden differs from the stored network's read out of bounds in
// DwtaHash::Hash or in predict.
TEST(CraftedModels, SpecMustDescribeTheNetwork) {
  testing::TempDir dir;
  const std::string sparse = WriteFile(
      dir, "sparse.spb", Model("sparse:hidden=64,out_sparsity=0.02", 0, 20, 16, 100).Finish());
  EXPECT_EQ(ErrorOf([&] { SparseLearner(sparse, TrainOptions{}); }),
            sparse + ": the spec says hidden=64 but the network has 16 hidden units");
  const std::string text = WriteFile(dir, "text.spb", Model(kTextSpec, 10, 20, 8, 10).Finish());
  EXPECT_NE(ErrorOf([&] {
              TextLearner(text, TrainOptions{});
            }).find(text + ": the text model's hidden=16 does not match"),
            std::string::npos);
  for (const auto& [spec, labels, in] :
       {std::tuple{kTextSpec, 9u, 20u}, std::tuple{kTextSpec, 10u, 21u},
        std::tuple{std::string("text:hidden=16"), 10u, 20u},
        std::tuple{std::string("sparse:hidden=16"), 10u, 20u},
        std::tuple{std::string("text:hidden=16,colour=1"), 10u, 20u}}) {
    const std::string path = WriteFile(dir, "bad.spb", Model(spec, labels, in, 16, 10).Finish());
    EXPECT_TRUE(ErrorOf([&] { TextLearner(path, TrainOptions{}); }).starts_with(path + ": "))
        << spec;
  }
  const std::string wrong_family =
      WriteFile(dir, "text-as-sparse.spb", Model(kTextSpec, 10, 20, 16, 10).Finish());
  EXPECT_TRUE(ErrorOf([&] {
                SparseLearner(wrong_family, TrainOptions{});
              }).starts_with(wrong_family + ": model spec: "));
}

// Issue 13: hidden = 0 segfaulted in predict; no count is used before it is checked.
TEST(CraftedModels, ShapesAndCountsAreCheckedBeforeUse) {
  const std::string none = "crafted.spb";
  auto load = [&](const std::string& bytes) {
    return ErrorOf([&] { LoadModel(InputFile(none, bytes)); });
  };
  EXPECT_NE(
      load(Model(kTextSpec, 10, 20, 0, 10).Finish()).find("implausible network shape 20 x 0 x 10"),
      std::string::npos);
  EXPECT_NE(load(Model(kTextSpec, 0, 20, 16, 0).Finish()).find("implausible network shape"),
            std::string::npos);
  // Counts far beyond the file's length, each before anything is allocated from it.
  EXPECT_NE(load(ModelBytes().Str(kTextSpec).Pod<uint64_t>(uint64_t{1} << 60).Finish())
                .find("more than the file holds"),
            std::string::npos);
  EXPECT_NE(load(ModelBytes().Pod<uint64_t>(uint64_t{1} << 62).Finish()).find("truncated"),
            std::string::npos);
  EXPECT_NE(load(ModelBytes()
                     .Str("sparse")
                     .Pod<uint64_t>(0)
                     .Pod(kMaxDimension)
                     .Pod(1u << 16)
                     .Pod(kMaxDimension)
                     .Finish())
                .find("needs more weights than the file holds"),
            std::string::npos);
  EXPECT_NE(load(ModelBytes()
                     .Str("sparse")
                     .Pod<uint64_t>(0)
                     .Pod(2u)
                     .Pod(2u)
                     .Pod(2u)
                     .Floats(5)
                     .Floats(2)
                     .Floats(4)
                     .Floats(2)
                     .Finish())
                .find("input weights has 5 values, expected 4"),
            std::string::npos);
  EXPECT_NE(load(Model(kTextSpec, 10, 20, 16, 10).Raw("extra").Finish())
                .find("5 unexpected bytes after the weights"),
            std::string::npos);
  EXPECT_EQ(load(Model(kTextSpec, 10, 20, 16, 10).Finish()), "no error");
}

// Spec settings in a file are limited like the user's: no table or hash sized beyond use.
TEST(CraftedModels, SettingsThatCannotRunAreTheFilesError) {
  testing::TempDir dir;
  const std::string path = WriteFile(
      dir, "tables.spb",
      Model("sparse:hidden=16,out_sparsity=0.1,l=4096,range=28", 0, 20, 16, 100).Finish());
  EXPECT_NE(ErrorOf([&] {
              SparseLearner(path, TrainOptions{});
            }).find(path + ": l=4096 tables of 2^28 buckets"),
            std::string::npos);
  HashParams srp;
  srp.family = "srp";
  srp.dim = 1u << 16;
  srp.k = 32;
  srp.tables = 4096;
  EXPECT_THROW(MakeHashFamily(srp), ConfigError);
}

TEST(CraftedModels, NetworksBeyondThisMachinesMemoryAreRefused) {
  EXPECT_THROW(Network(NetworkShape{kMaxDimension, 128, 10}, 1), ConfigError);
  EXPECT_THROW(Network(NetworkShape{10, 0, 10}, 1), ConfigError);
  EXPECT_THROW(SparseLearner(SparseConfig::Parse("sparse", {10, kMaxDimension}),
                             DataShape{10, kMaxDimension}, TrainOptions{}),
               ConfigError);
}

// Issue 13: a directory gave "basic_filebuf::underflow ... Is a directory" without the file's
// name, /dev/zero was read until memory ran out, and a FIFO blocked forever in open().
TEST(ModelPaths, DirectoriesDevicesAndFifosAreRefusedAtOnce) {
  testing::TempDir dir;
  EXPECT_EQ(ErrorOf([&] { LoadModel(dir.path()); }), dir.path() + ": is a directory, not a file");
  EXPECT_NE(ErrorOf([] { LoadModel("/dev/zero"); }).find("/dev/zero: not a regular file"),
            std::string::npos);
  const std::string fifo = dir.file("fifo.spb");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(ErrorOf([&] { LoadModel(fifo); }).find(fifo + ": not a regular file"),
            std::string::npos);
}

TEST(ModelPaths, DestinationIsCheckedUpFront) {
  testing::TempDir dir;
  EXPECT_NE(
      ErrorOf([&] { CheckModelDestination(dir.file("missing/model.spb")); }).find("No such file"),
      std::string::npos);
  EXPECT_EQ(ErrorOf([&] { CheckModelDestination(dir.path()); }),
            dir.path() + ": is a directory; give a file name for the model");
  std::ofstream(dir.file("file")) << "x";
  EXPECT_NE(ErrorOf([&] {
              CheckModelDestination(dir.file("file/model.spb"));
            }).find("is not a directory"),
            std::string::npos);
  EXPECT_EQ(ErrorOf([&] { CheckModelDestination(dir.file("new.spb")); }), "no error");
  EXPECT_EQ(ErrorOf([&] { CheckModelDestination(dir.file("file")); }),
            "no error");  // replaced on save
}

// Issue 13: --save truncated an existing model in place, so a failed write (a full disk)
// left neither the old nor a new model. A file-size limit makes the write fail here.
TEST_F(ModelFiles, FailedSaveLeavesTheOldModelWhole) {
  std::ifstream in(path_, std::ios::binary);
  const std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(old.size(), 8192u);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string error = ErrorOf([&] { learner_->Save(path_); });
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_NE(error.find(path_ + ": cannot write model file"), std::string::npos) << error;
  std::ifstream again(path_, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()),
            old);
  size_t files = 0;
  for ([[maybe_unused]] auto& entry : std::filesystem::directory_iterator(dir_.path())) ++files;
  EXPECT_EQ(files, 1u);   // no temporary file left behind
  learner_->Save(path_);  // and a save that can succeed replaces it
  EXPECT_NO_THROW(SparseLearner(path_, TrainOptions{}));
}

}  // namespace
}  // namespace sparsebench
