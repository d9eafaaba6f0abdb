#include "harness/measure/external/off_clock.h"

#include <fmt/format.h>
#include <time.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace sparsebench {
namespace {

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double PerRow(double cpu, uint64_t rows) { return cpu / static_cast<double>(rows); }

}  // namespace

std::vector<std::string> OffClockWork(const PhaseCpu& c) {
  std::vector<std::string> found;
  if (c.load > kLoadFactor * c.reference_read + kLoadSlack) {
    found.push_back(fmt::format(
        "load took {:.2f} CPU-s where the harness's reference reader reads the same files in "
        "{:.2f} (allowed: {:g}× that + {:g} s)",
        c.load, c.reference_read, kLoadFactor, kLoadSlack));
  }
  if (c.after_rows > 0) {
    const double rate = PerRow(c.after_predict, c.after_rows);
    const double model = static_cast<double>(c.pause_requests) * c.model_gb * kModelPassSeconds;
    if (c.pause >
        kPredictFactor * (rate * static_cast<double>(c.pause_rows) + model) + kPredictSlack) {
      found.push_back(fmt::format(
          "pauses took {:.2f} CPU-s for {} rows predicted in {} requests, where the test set's "
          "predictions after done took {:.3g} ms a row (allowed: {:g}× that, and {:g} s per GB "
          "of model ({:.3g} GB) a request, + {:g} s)",
          c.pause, c.pause_rows, c.pause_requests, 1e3 * rate, kPredictFactor, kModelPassSeconds,
          c.model_gb, kPredictSlack));
    }
  }
  if (c.pause_rows > 0) {
    const double rate = PerRow(c.pause, c.pause_rows);
    if (c.after_predict >
        kPredictFactor * rate * static_cast<double>(c.after_rows) + kPredictSlack) {
      found.push_back(fmt::format(
          "the test set's predictions after done took {:.2f} CPU-s for {} rows, where the "
          "pauses took {:.3g} ms a predicted row (allowed: {:g}× that + {:g} s)",
          c.after_predict, c.after_rows, 1e3 * rate, kPredictFactor, kPredictSlack));
    }
  }
  return found;
}

double ReferenceReadCpuSeconds(const std::string& path) {
  constexpr size_t kSample = 16 << 20;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  size_t bytes = 0;
  const double start = ThreadCpuSeconds();
  while (bytes < kSample && std::getline(in, line)) {
    bytes += line.size() + 1;
    const nlohmann::json row = nlohmann::json::parse(line, nullptr, false);
    if (row.is_discarded()) break;
  }
  const double cpu = ThreadCpuSeconds() - start;
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error || bytes == 0) return cpu;
  return cpu * static_cast<double>(size) / static_cast<double>(bytes);
}

}  // namespace sparsebench
