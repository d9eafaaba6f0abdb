#include "engine/model/model_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "datasets/data_error.h"
#include "datasets/dataset.h"
#include "datasets/line_blocks.h"
#include "engine/common/memory_limit.h"

namespace sparsebench {
namespace {

constexpr char kMagic[8] = {'S', 'P', 'B', 'M', 'O', 'D', 'E', 'L'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kMaxHidden = 1u << 16;  // the largest hidden width any spec accepts
// A metadata entry takes at least its two 8-byte lengths.
constexpr uint64_t kMinMetadataEntryBytes = 2 * sizeof(uint64_t);

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Writes the model to a fresh temporary file in the destination's directory; Commit renames
// it over the destination. Destroyed without Commit, it removes the temporary file.
class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), state_(XXH64_createState()) {
    XXH64_reset(state_, 0);
    const std::filesystem::path p(path);
    const std::filesystem::path dir =
        p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
    temp_ = (dir / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
    fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);
    if (fd_ < 0) throw DataError(path, 0, Errno("cannot create a temporary file beside the model"));
    buffer_.reserve(kBufferBytes);
  }
  ~Writer() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_.c_str());
    XXH64_freeState(state_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void Bytes(const void* p, size_t n) {
    XXH64_update(state_, p, n);
    Raw(p, n);
  }
  template <typename T>
  void Pod(const T& value) {
    Bytes(&value, sizeof(T));
  }
  void String(const std::string& s) {
    Pod<uint64_t>(s.size());
    Bytes(s.data(), s.size());
  }
  void Floats(const FloatVector& v) {
    Pod<uint64_t>(v.size());
    Bytes(v.data(), v.size() * sizeof(float));
  }
  // Checksum, flush, sync, then the rename that replaces any old model in one step.
  void Commit() {
    const uint64_t checksum = XXH64_digest(state_);
    Raw(&checksum, sizeof checksum);
    Flush();
    if (::fchmod(fd_, Mode()) != 0) Fail("cannot set the model file's permissions");
    if (::fsync(fd_) != 0) Fail("cannot write model file");
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) Fail("cannot write model file");
    if (::rename(temp_.c_str(), path_.c_str()) != 0)
      Fail("cannot rename the temporary file onto the model");
    committed_ = true;
  }

 private:
  static constexpr size_t kBufferBytes = size_t{1} << 20;

  void Raw(const void* p, size_t n) {
    const char* bytes = static_cast<const char*>(p);
    if (buffer_.size() + n > kBufferBytes) Flush();
    if (n >= kBufferBytes) {
      WriteAll(bytes, n);
    } else {
      buffer_.append(bytes, n);
    }
  }
  void Flush() {
    WriteAll(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  void WriteAll(const char* p, size_t n) {
    while (n > 0) {
      const ssize_t done = ::write(fd_, p, n);
      if (done < 0 && errno == EINTR) continue;
      if (done < 0) Fail("cannot write model file");
      p += done;
      n -= static_cast<size_t>(done);
    }
  }
  // An old model's permissions, else what a new file gets under the umask.
  mode_t Mode() const {
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0) return st.st_mode & 07777;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
  }
  [[noreturn]] void Fail(const char* what) const { throw DataError(path_, 0, Errno(what)); }

  const std::string& path_;
  std::string temp_;
  int fd_ = -1;
  bool committed_ = false;
  std::string buffer_;
  XXH64_state_t* state_;
};

// Reads fields from the bytes before the checksum; every count is checked against the bytes
// left before anything is allocated from it.
class Reader {
 public:
  Reader(const std::string& path, std::string_view bytes) : path_(path), bytes_(bytes) {}
  template <typename T>
  T Pod(const char* what) {
    T value;
    Need(sizeof(T), what);
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string String(const char* what) {
    const auto n = Pod<uint64_t>(what);
    Need(n, what);
    std::string s(bytes_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  void Floats(FloatVector& v, uint64_t expected, const char* what) {
    const auto n = Pod<uint64_t>(what);
    if (n != expected)
      Fail(std::string(what) + " has " + std::to_string(n) + " values, expected " +
           std::to_string(expected));
    Need(n * sizeof(float), what);  // n = expected < 2^48: no overflow
    v.resize(n);
    if (n != 0) std::memcpy(v.data(), bytes_.data() + pos_, n * sizeof(float));
    pos_ += n * sizeof(float);
  }
  void Skip(size_t n) { pos_ += n; }
  uint64_t left() const { return bytes_.size() - pos_; }
  [[noreturn]] void Fail(const std::string& reason) const { throw DataError(path_, 0, reason); }

 private:
  void Need(uint64_t n, const char* what) const {
    if (n > left()) Fail(std::string("truncated model file (while reading ") + what + ")");
  }
  const std::string& path_;
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

void SaveModel(const std::string& path, const std::string& spec, const ModelMetadata& metadata,
               const Network& network) {
  CheckModelDestination(path);
  Writer w(path);
  w.Bytes(kMagic, sizeof kMagic);
  w.Pod(kFormatVersion);
  w.String(spec);
  w.Pod<uint64_t>(metadata.size());
  for (const auto& [key, value] : metadata) {
    w.String(key);
    w.String(value);
  }
  const NetworkShape& s = network.shape;
  w.Pod(s.input_dim);
  w.Pod(s.hidden_dim);
  w.Pod(s.output_dim);
  w.Floats(network.input.w);
  w.Floats(network.input.bias);
  if (network.output.bf16_weights()) {
    FloatVector weights(network.output.w16.size());
    WidenBf16(network.output.w16.data(), weights.size(), weights.data());
    w.Floats(weights);
  } else {
    w.Floats(network.output.w);
  }
  w.Floats(network.output.bias);
  w.Commit();
}

void CheckModelDestination(const std::string& path) {
  if (path.empty()) throw DataError(path, 0, "empty model path");
  const std::filesystem::path p(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw DataError(path, 0, "is a directory; give a file name for the model");
    if (!S_ISREG(st.st_mode)) throw DataError(path, 0, "exists and is not a regular file");
  } else if (errno != ENOENT && errno != ENOTDIR) {  // those two: the directory is checked next
    throw DataError(path, 0, Errno("cannot save the model here"));
  }
  const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
  if (::stat(dir.c_str(), &st) != 0)
    throw DataError(path, 0, Errno(("cannot save the model in " + dir).c_str()));
  if (!S_ISDIR(st.st_mode)) throw DataError(path, 0, dir + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw DataError(path, 0, Errno(("cannot write to directory " + dir).c_str()));
  }
}

SavedModel LoadModel(const std::string& path) {
  const InputFile file(path);
  return LoadModel(file);
}

SavedModel LoadModel(const InputFile& file) {
  const std::string& path = file.path();
  if (file.size() > PhysicalMemoryBytes()) {
    throw DataError(path, 0,
                    "model file of " + std::to_string(file.size()) +
                        " bytes is larger than this machine's memory");
  }
  std::string bytes(file.size(), '\0');
  if (file.ReadAt(0, bytes.data(), bytes.size()) != bytes.size())
    throw DataError(path, 0, "file shrank while being read");
  if (bytes.size() < sizeof(kMagic) + sizeof(uint32_t) + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    throw DataError(path, 0, "not a SparseBench model file (bad magic)");
  }
  const size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof stored);
  Reader r(path, std::string_view(bytes).substr(0, body));
  r.Skip(sizeof(kMagic));
  const auto version = r.Pod<uint32_t>("version");
  if (version != kFormatVersion) {
    r.Fail("model format version " + std::to_string(version) + " is not supported (expected " +
           std::to_string(kFormatVersion) + ")");
  }
  if (XXH64(bytes.data(), body, 0) != stored)
    r.Fail("checksum mismatch: the model file is corrupt or truncated");
  // The checksum catches accidents, not a crafted file: each field is checked below.
  SavedModel model;
  model.spec = r.String("spec");
  const auto entries = r.Pod<uint64_t>("metadata");
  if (entries > r.left() / kMinMetadataEntryBytes) {
    r.Fail("metadata claims " + std::to_string(entries) + " entries, more than the file holds");
  }
  model.metadata.reserve(entries);
  for (uint64_t i = 0; i < entries; ++i) {
    std::string key = r.String("metadata key");
    model.metadata.emplace_back(std::move(key), r.String("metadata value"));
  }
  NetworkShape s;
  s.input_dim = r.Pod<uint32_t>("shape");
  s.hidden_dim = r.Pod<uint32_t>("shape");
  s.output_dim = r.Pod<uint32_t>("shape");
  if (s.input_dim == 0 || s.hidden_dim == 0 || s.output_dim == 0 || s.input_dim > kMaxDimension ||
      s.output_dim > kMaxDimension || s.hidden_dim > kMaxHidden) {
    r.Fail("implausible network shape " + std::to_string(s.input_dim) + " x " +
           std::to_string(s.hidden_dim) + " x " + std::to_string(s.output_dim) +
           " (each must be positive; hidden at most " + std::to_string(kMaxHidden) +
           ", inputs and outputs at most " + std::to_string(kMaxDimension) + ")");
  }
  const uint64_t weights =
      (uint64_t{s.input_dim} + s.output_dim) * s.hidden_dim + s.hidden_dim + s.output_dim;
  if (weights > r.left() / sizeof(float)) {
    r.Fail("network shape " + std::to_string(s.input_dim) + " x " + std::to_string(s.hidden_dim) +
           " x " + std::to_string(s.output_dim) + " needs more weights than the file holds");
  }
  model.network.shape = s;
  Parameters& in_p = model.network.input;
  Parameters& out_p = model.network.output;
  in_p.rows = s.input_dim, in_p.dim = s.hidden_dim;
  out_p.rows = s.output_dim, out_p.dim = s.hidden_dim;
  r.Floats(in_p.w, uint64_t{s.input_dim} * s.hidden_dim, "input weights");
  r.Floats(in_p.bias, s.hidden_dim, "input bias");
  r.Floats(out_p.w, uint64_t{s.output_dim} * s.hidden_dim, "output weights");
  r.Floats(out_p.bias, s.output_dim, "output bias");
  if (r.left() != 0) r.Fail(std::to_string(r.left()) + " unexpected bytes after the weights");
  return model;
}

}  // namespace sparsebench
