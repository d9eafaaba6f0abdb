#include "baselines/temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace sparsebench {
namespace {

void WriteBytes(const std::filesystem::path& path, size_t bytes) {
  std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
}

// Files under /dev/shm hold memory that no process's resident size counts: the cell's peak
// adds them (staged_memory_mb), sized by what the directory holds now, subfolders included.
TEST(TempDir, StatesItsFilesSizeAndWhetherTheyAreInMemory) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm here";
  const TempDir dir("/dev/shm", "sparsebench-test-");
  EXPECT_EQ(dir.Staged().mb, 0.0);
  WriteBytes(dir.path() / "a", 3 << 20);
  std::filesystem::create_directory(dir.path() / "sub");
  WriteBytes(dir.path() / "sub" / "b", 1 << 20);
  const StagedFiles staged = dir.Staged();
  EXPECT_DOUBLE_EQ(staged.mb, 4.0);
  EXPECT_TRUE(staged.in_memory);
  std::map<std::string, std::string> facts;
  AddStagedFacts(dir, facts);
  EXPECT_EQ(facts.at(kStagedMbKey), "4.0");
  EXPECT_EQ(facts.at(kStagedMemoryMbKey), "4.0");
  EXPECT_EQ(facts.at(kStagedInKey), dir.path().string());
}

// Under the working directory (the build tree, on disk unless the machine keeps it in memory):
// the files' size is stated and, on disk, none of it is memory.
TEST(TempDir, FilesOnDiskAreStatedNotCountedAsMemory) {
  const TempDir dir(std::filesystem::current_path(), "sparsebench-test-");
  WriteBytes(dir.path() / "a", 1 << 20);
  std::map<std::string, std::string> facts;
  AddStagedFacts(dir, facts);
  EXPECT_EQ(facts.at(kStagedMbKey), "1.0");
  if (!dir.Staged().in_memory) {
    EXPECT_EQ(facts.at(kStagedMemoryMbKey), "0.0");
  }
}

}  // namespace
}  // namespace sparsebench
