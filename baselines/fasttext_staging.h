#pragma once

#include <filesystem>
#include <string_view>

namespace sparsebench {

// fastText's staged input files live in "<parent>/sparsebench-fasttext-<pid>-XXXXXX".
inline constexpr std::string_view kFastTextStagingPrefix = "sparsebench-fasttext-";

// /dev/shm when it is a writable directory, else the system's temporary directory.
std::filesystem::path FastTextStagingParent();

// A process killed by a matrix's time limit cannot remove its own staging directory, and
// under /dev/shm it would hold memory until reboot: removes those in `parent` whose process
// no longer exists.
void RemoveStaleFastTextStaging(const std::filesystem::path& parent);

}  // namespace sparsebench
