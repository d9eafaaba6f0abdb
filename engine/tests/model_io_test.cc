#include "engine/model_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "engine/sparse_learner.h"
#include "engine/tests/test_util.h"

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

}  // namespace
}  // namespace sparsebench
