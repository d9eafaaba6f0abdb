#include "engine/model_io.h"

#include <xxhash.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "datasets/data_error.h"

namespace sparsebench {
namespace {

constexpr char kMagic[8] = {'S', 'P', 'B', 'M', 'O', 'D', 'E', 'L'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint64_t kMaxElements = uint64_t{1} << 34;  // 64 GiB of floats: anything above is corrupt

class Writer {
 public:
  explicit Writer(const std::string& path)
      : path_(path), out_(path, std::ios::binary | std::ios::trunc), state_(XXH64_createState()) {
    XXH64_reset(state_, 0);
    if (!out_) throw DataError(path, 0, "cannot create model file");
  }
  ~Writer() { XXH64_freeState(state_); }
  void Bytes(const void* p, size_t n) {
    XXH64_update(state_, p, n);
    out_.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
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
  void Finish() {
    const uint64_t checksum = XXH64_digest(state_);
    out_.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
    out_.close();
    if (!out_) throw DataError(path_, 0, "cannot write model file");
  }

 private:
  const std::string& path_;
  std::ofstream out_;
  XXH64_state_t* state_;
};

class Reader {
 public:
  Reader(const std::string& path, const std::vector<char>& bytes, size_t end)
      : path_(path), bytes_(bytes), end_(end) {}
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
    std::string s(bytes_.data() + pos_, n);
    pos_ += n;
    return s;
  }
  void Floats(FloatVector& v, uint64_t expected, const char* what) {
    const auto n = Pod<uint64_t>(what);
    if (n != expected) Fail(std::string(what) + " has " + std::to_string(n) + " values, expected " + std::to_string(expected));
    Need(n * sizeof(float), what);
    v.resize(n);
    std::memcpy(v.data(), bytes_.data() + pos_, n * sizeof(float));
    pos_ += n * sizeof(float);
  }
  void Skip(size_t n) { pos_ += n; }
  [[noreturn]] void Fail(const std::string& reason) const { throw DataError(path_, 0, reason); }

 private:
  void Need(uint64_t n, const char* what) const {
    if (n > end_ - pos_) Fail(std::string("truncated model file (while reading ") + what + ")");
  }
  const std::string& path_;
  const std::vector<char>& bytes_;
  size_t end_;
  size_t pos_ = 0;
};

}  // namespace

void SaveModel(const std::string& path, const std::string& spec, const ModelMetadata& metadata,
               const Network& network) {
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
  w.Floats(network.output.w);
  w.Floats(network.output.bias);
  w.Finish();
}

SavedModel LoadModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, 0, "cannot open model file");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(kMagic) + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    throw DataError(path, 0, "not a SparseBench model file (bad magic)");
  }
  const size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof stored);
  Reader r(path, bytes, body);
  r.Skip(sizeof(kMagic));
  const auto version = r.Pod<uint32_t>("version");
  if (version != kFormatVersion) {
    r.Fail("model format version " + std::to_string(version) + " is not supported (expected " +
           std::to_string(kFormatVersion) + ")");
  }
  if (XXH64(bytes.data(), body, 0) != stored) r.Fail("checksum mismatch: the model file is corrupt or truncated");
  SavedModel model;
  model.spec = r.String("spec");
  const auto entries = r.Pod<uint64_t>("metadata");
  for (uint64_t i = 0; i < entries; ++i) {
    std::string key = r.String("metadata key");
    model.metadata.emplace_back(std::move(key), r.String("metadata value"));
  }
  NetworkShape s;
  s.input_dim = r.Pod<uint32_t>("shape");
  s.hidden_dim = r.Pod<uint32_t>("shape");
  s.output_dim = r.Pod<uint32_t>("shape");
  if (uint64_t{s.input_dim} * s.hidden_dim > kMaxElements || uint64_t{s.output_dim} * s.hidden_dim > kMaxElements) {
    r.Fail("implausible network dimensions");
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
  return model;
}

}  // namespace sparsebench
