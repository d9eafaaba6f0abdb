#include "datasets/line_blocks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "datasets/data_error.h"

namespace sparsebench {

InputFile::InputFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw DataError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    ::close(fd_);
    throw DataError(path, 0, std::string("cannot stat: ") + std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw DataError(path, 0, S_ISDIR(st.st_mode) ? "is a directory, not a file"
                                                 : "not a regular file (a FIFO, socket or device cannot be read here)");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::InputFile(std::string name, std::string_view contents)
    : path_(std::move(name)), memory_(contents.data()), size_(contents.size()) {}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t Utf8BomLength(const InputFile& file) {
  char head[3];
  const size_t got = file.ReadAt(0, head, sizeof head);
  return std::string_view(head, got) == kUtf8Bom ? kUtf8Bom.size() : 0;
}

size_t InputFile::ReadAt(uint64_t offset, char* out, size_t count) const {
  if (fd_ < 0) {
    if (offset >= size_) return 0;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(count, size_ - offset));
    if (n != 0) std::memcpy(out, memory_ + offset, n);
    return n;
  }
  size_t done = 0;
  while (done < count) {
    ssize_t got = ::pread(fd_, out + done, count - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw DataError(path_, 0, std::string("read failed: ") + std::strerror(errno));
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

LineBlocks::LineBlocks(const InputFile& file, uint64_t begin, uint64_t end, uint64_t first_line,
                       size_t max_line_bytes)
    : file_(file),
      offset_(begin),
      end_(end),
      max_line_bytes_(max_line_bytes),
      buffer_(std::min<uint64_t>(kBlockBytes, std::max<uint64_t>(end - begin, 1))),
      next_line_(first_line),
      block_first_line_(first_line) {}

std::string_view LineBlocks::Next() {
  std::memmove(buffer_.data(), buffer_.data() + tail_begin_, tail_len_);
  size_t filled = tail_len_;
  tail_begin_ = tail_len_ = 0;
  while (true) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer_.size() - filled, end_ - offset_));
    const size_t got = want == 0 ? 0 : file_.ReadAt(offset_, buffer_.data() + filled, want);
    if (got < want) throw DataError(file_.path(), next_line_, "file shrank while being read");
    offset_ += got;
    filled += got;
    const bool at_end = offset_ == end_;
    std::string_view data(buffer_.data(), filled);
    const size_t last_nl = data.rfind('\n');
    const size_t block_len =
        at_end ? filled : (last_nl == std::string_view::npos ? 0 : last_nl + 1);
    if (block_len == 0 && !at_end) {
      if (buffer_.size() >= max_line_bytes_) {
        throw DataError(file_.path(), next_line_,
                        "line longer than " + std::to_string(max_line_bytes_) + " bytes");
      }
      buffer_.resize(std::min(buffer_.size() * 2, max_line_bytes_));
      continue;
    }
    std::string_view block = data.substr(0, block_len);
    tail_begin_ = block_len;
    tail_len_ = filled - block_len;
    block_first_line_ = next_line_;
    next_line_ += static_cast<uint64_t>(std::count(block.begin(), block.end(), '\n'));
    if (at_end && !block.empty() && block.back() != '\n') ++next_line_;
    return block;
  }
}

std::vector<uint64_t> SplitAtLines(const InputFile& file, uint64_t begin, uint64_t end,
                                   size_t parts) {
  std::vector<uint64_t> bounds{begin};
  char window[4096];
  for (size_t k = 1; k < parts; ++k) {
    uint64_t pos = std::max(bounds.back(), begin + (end - begin) * k / parts);
    while (pos < end) {
      const size_t got = file.ReadAt(pos, window, std::min<uint64_t>(sizeof window, end - pos));
      const void* nl = std::memchr(window, '\n', got);
      if (nl != nullptr) {
        pos += static_cast<uint64_t>(static_cast<const char*>(nl) - window) + 1;
        break;
      }
      pos += got;
    }
    if (pos >= end) break;
    if (pos > bounds.back()) bounds.push_back(pos);
  }
  bounds.push_back(end);
  return bounds;
}

}  // namespace sparsebench
