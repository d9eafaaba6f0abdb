#include "harness/history/store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "datasets/data_error.h"
#include "harness/record/files.h"

namespace fs = std::filesystem;

namespace sparsebench {
namespace {

constexpr uintmax_t kMaxStoreFileBytes = uintmax_t{1} << 30;
constexpr const char* kAnnotations = "annotations.jsonl";

// Each non-blank line of a JSON-lines file, parsed, with its line number.
template <typename OnLine>
void ForEachLine(const std::string& path, OnLine&& on_line) {
  if (!fs::exists(path)) return;
  std::istringstream in(ReadRegularFile(path, kMaxStoreFileBytes, "a history file"));
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw DataError(path, number, std::string("not JSON: ") + e.what());
    }
    on_line(j, number);
  }
}

void AppendLines(const std::string& dir, const std::string& file, const std::string& text) {
  EnsureDirectory(dir);
  const std::string path = (fs::path(dir) / file).string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw DataError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw DataError(path, 0, "cannot append: " + why);
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  if (::close(fd) != 0 || !synced) throw DataError(path, 0, "cannot write");
}

bool SafeMachineName(const std::string& machine) {
  return !machine.empty() && machine.find_first_not_of(
                                 "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == std::string::npos;
}

}  // namespace

bool Annotation::Matches(const std::string& commit_id, const std::string& cell_id) const {
  return commit.size() >= 7 && commit_id.starts_with(commit) &&
         ::fnmatch(cell.c_str(), cell_id.c_str(), 0) == 0;
}

std::vector<std::string> HistoryStore::Machines() const {
  std::vector<std::string> machines;
  if (!fs::is_directory(dir_)) return machines;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const fs::path p = entry.path();
    if (p.extension() == ".jsonl" && p.filename() != kAnnotations)
      machines.push_back(p.stem().string());
  }
  std::sort(machines.begin(), machines.end());
  return machines;
}

std::vector<HistoryRecord> HistoryStore::Records(const std::string& machine) const {
  std::vector<HistoryRecord> records;
  if (!SafeMachineName(machine)) return records;
  const std::string path = (fs::path(dir_) / (machine + ".jsonl")).string();
  ForEachLine(path, [&](const nlohmann::json& j, uint64_t line) {
    records.push_back(RecordFromJson(j, fmt::format("{}:{}", path, line)));
    if (records.back().machine != machine)
      throw DataError(path, line, "a record of machine '" + records.back().machine + "'");
  });
  return records;
}

std::vector<Annotation> HistoryStore::Annotations() const {
  std::vector<Annotation> annotations;
  const std::string path = (fs::path(dir_) / kAnnotations).string();
  ForEachLine(path, [&](const nlohmann::json& j, uint64_t line) {
    if (!j.is_object() || !j.value("commit", nlohmann::json()).is_string() ||
        !j.value("cell", nlohmann::json()).is_string()) {
      throw DataError(path, line, "an annotation needs a 'commit' and a 'cell'");
    }
    annotations.push_back({j["commit"], j["cell"], j.value("reason", ""), j.value("date", "")});
  });
  return annotations;
}

void HistoryStore::Append(const std::vector<HistoryRecord>& records) const {
  if (records.empty()) return;
  std::string text;
  for (const HistoryRecord& r : records) {
    if (r.machine != records.front().machine)
      throw DataError(dir_, 0, "records of two machines in one append");
    text += ToJson(r).dump() + "\n";
  }
  if (!SafeMachineName(records.front().machine))
    throw DataError(dir_, 0, "machine key '" + records.front().machine + "' is not a file name");
  AppendLines(dir_, records.front().machine + ".jsonl", text);
}

void HistoryStore::Append(const Annotation& a) const {
  if (a.commit.size() < 7 || a.commit.find_first_not_of("0123456789abcdef") != std::string::npos) {
    throw DataError(dir_, 0, "annotate: '" + a.commit + "' is not a commit (7+ hex digits)");
  }
  if (a.cell.empty() || a.reason.empty())
    throw DataError(dir_, 0, "annotate: a cell glob and a reason are needed");
  const nlohmann::json j = {
      {"commit", a.commit}, {"cell", a.cell}, {"reason", a.reason}, {"date", a.date}};
  AppendLines(dir_, kAnnotations, j.dump() + "\n");
}

}  // namespace sparsebench
