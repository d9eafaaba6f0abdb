#include "datasets/data_error.h"

#include <utility>

namespace sparsebench {
namespace {

std::string Describe(const std::string& file, uint64_t line, const std::string& reason) {
  if (line == 0) return file + ": " + reason;
  return file + ":" + std::to_string(line) + ": " + reason;
}

}  // namespace

DataError::DataError(std::string file, uint64_t line, std::string reason)
    : std::runtime_error(Describe(file, line, reason)),
      file_(std::move(file)),
      line_(line),
      reason_(std::move(reason)) {}

}  // namespace sparsebench
