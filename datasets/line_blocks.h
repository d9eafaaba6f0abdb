#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparsebench {

// An open regular file, closed on destruction; opening or reading failures are DataErrors.
// Only regular files open: a directory, FIFO, socket or device is refused at once (a FIFO
// without a writer never blocks the open). Bytes in memory can stand in for a file (tests,
// fuzzing): `path` is then only the name errors give.
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  InputFile(std::string name, std::string_view contents);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  // Reads up to `count` bytes at `offset`; returns how many were read (0 at end of file).
  size_t ReadAt(uint64_t offset, char* out, size_t count) const;

 private:
  std::string path_;
  int fd_ = -1;
  const char* memory_ = nullptr;  // contents when not backed by a file
  uint64_t size_ = 0;
};

// 3 when the file starts with a UTF-8 byte-order mark (EF BB BF), which readers skip as CSV
// tools do; 0 otherwise.
uint64_t Utf8BomLength(const InputFile& file);
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Streams [begin, end) of a file as blocks of whole lines. A line longer than the block grows
// the buffer up to `max_line_bytes`; a longer one is a DataError, so memory stays bounded.
class LineBlocks {
 public:
  static constexpr size_t kBlockBytes = size_t{1} << 20;
  static constexpr size_t kMaxLineBytes = size_t{1} << 30;

  LineBlocks(const InputFile& file, uint64_t begin, uint64_t end, uint64_t first_line,
             size_t max_line_bytes = kMaxLineBytes);

  // The next block of complete lines, each ending in '\n' except perhaps the range's last.
  // Empty at the end of the range. Invalidates the previous block.
  std::string_view Next();
  // 1-based line number of the first line of the block Next() returned last.
  uint64_t block_first_line() const { return block_first_line_; }

 private:
  const InputFile& file_;
  uint64_t offset_;
  uint64_t end_;
  size_t max_line_bytes_;
  std::vector<char> buffer_;
  size_t tail_begin_ = 0;  // an unfinished line after the last block, moved to the front next
  size_t tail_len_ = 0;
  uint64_t next_line_;
  uint64_t block_first_line_;
};

// Splits [begin, end) into up to `parts` ranges that start at line starts; returns the
// boundaries (first = begin, last = end).
std::vector<uint64_t> SplitAtLines(const InputFile& file, uint64_t begin, uint64_t end,
                                   size_t parts);

// Removes a trailing '\n' and then a trailing '\r' (CRLF files are accepted).
inline std::string_view TrimLineEnd(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Calls fn(line, line_number) for each line of a block from LineBlocks, without its end.
template <typename Fn>
void ForEachLine(std::string_view block, uint64_t first_line, Fn&& fn) {
  uint64_t line_number = first_line;
  while (!block.empty()) {
    size_t nl = block.find('\n');
    size_t len = nl == std::string_view::npos ? block.size() : nl + 1;
    fn(TrimLineEnd(block.substr(0, len)), line_number++);
    block.remove_prefix(len);
  }
}

}  // namespace sparsebench
