#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "baselines/fasttext_format.h"
#include "baselines/temp_dir.h"
#include "datasets/dataset.h"

namespace sparsebench {

// fastText's staged input files live in "<parent>/sparsebench-fasttext-<pid>-XXXXXX".
inline constexpr std::string_view kFastTextStagingPrefix = "sparsebench-fasttext-";

// /dev/shm when it is a writable directory, else the system's temporary directory.
std::filesystem::path FastTextStagingParent();

// A process killed by a matrix's time limit cannot remove its own staging directory, and
// under /dev/shm it would hold memory until reboot: removes those in `parent` whose process
// no longer exists.
void RemoveStaleFastTextStaging(const std::filesystem::path& parent);

// The files fastText trains on, removed with the directory.
struct FastTextStaged {
  std::unique_ptr<TempDir> dir;
  std::filesystem::path train_file;             // every labelled row
  std::filesystem::path tune_file, valid_file;  // autotune's 90% and held-out 10%
  uint64_t rows = 0, tune_rows = 0;
};

// Writes the labelled rows of `train` in `format`, in the order of a permutation seeded by
// `seed` (the published recipes shuffle their files; real DBPedia files are sorted by class),
// under FastTextStagingParent(), or the system's temporary directory when that is full. With
// `held_out`, also a seeded 10% held-out slice and the other rows, shuffled likewise.
// DataError when no row has a label or input fastText can read.
std::unique_ptr<FastTextStaged> StageFastTextRows(const Dataset& train, const FastTextRows& format,
                                                  uint64_t seed, bool held_out);

}  // namespace sparsebench
