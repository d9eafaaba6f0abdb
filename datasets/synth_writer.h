#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace sparsebench {

// Writes a file, creating it or failing with a DataError that names it.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void Write(std::string_view bytes);
  void Close();

 private:
  std::string path_;
  std::FILE* file_;
};

// Generates rows 0..n-1 in parallel blocks, each row appended to a text buffer by
// write_row(row, buffer) and returning its count of written items, and writes the blocks in
// row order. Output is independent of the thread count.
uint64_t WriteRowsInOrder(OutputFile& out, uint64_t rows, int threads,
                          const std::function<uint64_t(uint64_t, std::string&)>& write_row);

}  // namespace sparsebench
