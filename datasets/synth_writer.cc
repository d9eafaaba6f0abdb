#include "datasets/synth_writer.h"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <vector>

#include "datasets/data_error.h"

namespace sparsebench {

OutputFile::OutputFile(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
  if (file_ == nullptr) throw DataError(path, 0, std::string("cannot create: ") + std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (file_ != nullptr) std::fclose(file_);
}

void OutputFile::Write(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    throw DataError(path_, 0, std::string("write failed: ") + std::strerror(errno));
  }
}

void OutputFile::Close() {
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) throw DataError(path_, 0, std::string("close failed: ") + std::strerror(errno));
}

uint64_t WriteRowsInOrder(OutputFile& out, uint64_t rows, int threads,
                          const std::function<uint64_t(uint64_t, std::string&)>& write_row) {
  constexpr uint64_t kBlockRows = 2048;
  const int parts = std::max(1, threads);
  std::vector<std::string> buffers(static_cast<size_t>(parts));
  std::vector<uint64_t> counts(static_cast<size_t>(parts));
  std::vector<std::exception_ptr> failures(static_cast<size_t>(parts));
  uint64_t total = 0;
  for (uint64_t first = 0; first < rows; first += kBlockRows * static_cast<uint64_t>(parts)) {
#pragma omp parallel for num_threads(parts) schedule(static, 1)
    for (int t = 0; t < parts; ++t) {
      auto& buffer = buffers[static_cast<size_t>(t)];
      buffer.clear();
      counts[static_cast<size_t>(t)] = 0;
      const uint64_t begin = std::min(rows, first + kBlockRows * static_cast<uint64_t>(t));
      const uint64_t end = std::min(rows, begin + kBlockRows);
      try {
        for (uint64_t r = begin; r < end; ++r) counts[static_cast<size_t>(t)] += write_row(r, buffer);
      } catch (...) {
        failures[static_cast<size_t>(t)] = std::current_exception();
      }
    }
    for (size_t t = 0; t < buffers.size(); ++t) {
      if (failures[t]) std::rethrow_exception(failures[t]);
      out.Write(buffers[t]);
      total += counts[t];
    }
  }
  return total;
}

}  // namespace sparsebench
