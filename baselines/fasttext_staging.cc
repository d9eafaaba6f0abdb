#include "baselines/fasttext_staging.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <exception>
#include <string>
#include <system_error>
#include <vector>

#include "datasets/data_error.h"

namespace sparsebench {

namespace fs = std::filesystem;

namespace {

constexpr double kHeldOutFraction = 0.1;

void CheckHasInput(const Dataset& data) {
  if (data.has_text() || data.has_features() || data.rows() == 0) return;
  throw DataError(data.name, 0, "rows have neither text nor features for fastText");
}

std::vector<uint32_t> LabelledRows(const Dataset& data) {
  std::vector<uint32_t> rows;
  for (size_t r = 0; r < data.rows(); ++r) {
    if (!data.labels(r).empty()) rows.push_back(static_cast<uint32_t>(r));
  }
  return rows;
}

// The rows of `shuffled` outside the seeded held-out slice of `labelled`, and that slice.
void SplitHeldOut(const Dataset& train, const std::vector<uint32_t>& labelled,
                  const std::vector<uint32_t>& shuffled, uint64_t seed, std::vector<uint32_t>& tune,
                  std::vector<uint32_t>& valid) {
  if (labelled.size() < 2) throw DataError(train.name, 0, "autotune needs 2 or more labelled rows");
  const double fraction = std::max(kHeldOutFraction, 1.0 / static_cast<double>(labelled.size()));
  const RowSplit split = HeldOutSplit(labelled.size(), fraction, seed);
  std::vector<bool> held_out(train.rows(), false);
  for (uint32_t i : split.held_out) {
    held_out[labelled[i]] = true;
    valid.push_back(labelled[i]);
  }
  for (uint32_t r : shuffled) {
    if (!held_out[r]) tune.push_back(r);
  }
}

}  // namespace

fs::path FastTextStagingParent() {
  std::error_code error;
  const fs::path shm = "/dev/shm";
  if (fs::is_directory(shm, error) && access(shm.c_str(), W_OK) == 0) return shm;
  return fs::temp_directory_path();
}

void RemoveStaleFastTextStaging(const fs::path& parent) {
  std::error_code error;
  for (fs::directory_iterator it(parent, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kFastTextStagingPrefix)) continue;
    const std::string rest = name.substr(kFastTextStagingPrefix.size());
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    pid_t pid = 0;
    const auto [stop, parsed] = std::from_chars(rest.data(), rest.data() + dash, pid);
    if (parsed != std::errc() || stop != rest.data() + dash || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

std::unique_ptr<FastTextStaged> StageFastTextRows(const Dataset& train, const FastTextRows& format,
                                                  uint64_t seed, bool held_out) {
  CheckHasInput(train);
  const std::vector<uint32_t> labelled = LabelledRows(train);
  if (labelled.empty()) throw DataError(train.name, 0, "no row has a label to train fastText on");
  std::vector<uint32_t> shuffled, tune, valid;
  for (uint32_t i : SeededPermutation(labelled.size(), seed)) shuffled.push_back(labelled[i]);
  if (held_out) SplitHeldOut(train, labelled, shuffled, seed, tune, valid);
  auto write = [&](const fs::path& parent) {
    auto staged = std::make_unique<FastTextStaged>();
    RemoveStaleFastTextStaging(parent);
    staged->dir =
        std::make_unique<TempDir>(parent, fmt::format("{}{}-", kFastTextStagingPrefix, getpid()));
    staged->train_file = staged->dir->path() / "train.txt";
    staged->rows = shuffled.size();
    WriteFastTextRows(train, shuffled, format, staged->train_file);
    if (held_out) {
      staged->tune_file = staged->dir->path() / "tune_train.txt";
      staged->valid_file = staged->dir->path() / "tune_valid.txt";
      staged->tune_rows = tune.size();
      WriteFastTextRows(train, tune, format, staged->tune_file);
      WriteFastTextRows(train, valid, format, staged->valid_file);
    }
    return staged;
  };
  const fs::path parent = FastTextStagingParent();
  try {
    return write(parent);
  } catch (const std::exception&) {
    if (parent == fs::temp_directory_path()) throw;
    return write(fs::temp_directory_path());  // /dev/shm full: memory is the only difference
  }
}

}  // namespace sparsebench
