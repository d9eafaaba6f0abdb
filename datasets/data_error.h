#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace sparsebench {

// A user's input is wrong: names the file, the 1-based line (0 when none applies) and why.
class DataError : public std::runtime_error {
 public:
  DataError(std::string file, uint64_t line, std::string reason);

  const std::string& file() const { return file_; }
  uint64_t line() const { return line_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  uint64_t line_;
  std::string reason_;
};

}  // namespace sparsebench
