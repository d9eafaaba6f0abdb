#include "datasets/xmc_reader.h"

#include <fast_float/fast_float.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <optional>

#include "datasets/data_error.h"
#include "datasets/line_blocks.h"

namespace sparsebench {
namespace {

struct Header {
  uint64_t rows;
  uint32_t features;
  uint32_t labels;
  uint64_t data_begin;
};

// A parse failure inside a line: the reason; the caller adds file and line.
struct LineError {
  std::string reason;
};

template <typename T>
bool ParseUint(const char*& p, const char* end, T& out) {
  if (p == end || *p < '0' || *p > '9') return false;
  auto [next, ec] = std::from_chars(p, end, out);
  if (ec != std::errc()) return false;
  p = next;
  return true;
}

Header ReadHeader(const InputFile& file, uint64_t begin) {
  LineBlocks blocks(file, begin, std::min<uint64_t>(file.size(), begin + 4096), 1);
  std::string_view block = blocks.Next();
  size_t nl = block.find('\n');
  if (nl == std::string_view::npos && file.size() > begin + block.size()) {
    throw DataError(file.path(), 1, "header line \"N D L\" missing or too long");
  }
  std::string_view line = TrimLineEnd(block.substr(0, nl == std::string_view::npos ? nl : nl + 1));
  Header h{};
  const char* p = line.data();
  const char* end = p + line.size();
  auto field = [&](auto& out) {
    while (p != end && *p == ' ') ++p;
    return ParseUint(p, end, out);
  };
  if (!field(h.rows) || !field(h.features) || !field(h.labels) || p != end) {
    throw DataError(file.path(), 1,
                    "expected header \"N D L\" (three non-negative integers), got \"" +
                        std::string(line.substr(0, 80)) + "\"");
  }
  if (h.features > kMaxDimension || h.labels > kMaxDimension) {
    throw DataError(file.path(), 1,
                    "header says D = " + std::to_string(h.features) + " and L = " + std::to_string(h.labels) +
                        "; each must be at most " + std::to_string(kMaxDimension));
  }
  h.data_begin = nl == std::string_view::npos ? file.size() : begin + nl + 1;
  return h;
}

struct RangeCounts {
  uint64_t lines = 0;
  uint64_t colons = 0;
};

RangeCounts CountRange(const InputFile& file, uint64_t begin, uint64_t end) {
  RangeCounts counts;
  LineBlocks blocks(file, begin, end, 1);
  for (std::string_view b = blocks.Next(); !b.empty(); b = blocks.Next()) {
    counts.lines += static_cast<uint64_t>(std::count(b.begin(), b.end(), '\n'));
    counts.colons += static_cast<uint64_t>(std::count(b.begin(), b.end(), ':'));
    if (b.back() != '\n') ++counts.lines;
  }
  return counts;
}

// Parses one range of rows into preassigned slots of the shared arrays; labels go to a local
// vector. Tracks the largest ids seen so a header-less file can size itself.
class RangeParser {
 public:
  // Ids must be below max_features / max_labels, or below kMaxDimension when those are 0.
  RangeParser(Dataset& out, uint64_t first_row, uint64_t first_nnz, uint32_t max_features,
              uint32_t max_labels)
      : out_(out), row_(first_row), nnz_(first_nnz), max_features_(max_features),
        max_labels_(max_labels) {}

  std::optional<LineError> ParseLine(std::string_view line) {
    if (line.empty()) return LineError{"empty line (expected labels and f:v pairs)"};
    const char* p = line.data();
    const char* end = p + line.size();
    const uint64_t row_start = nnz_;
    const size_t label_start = labels.size();
    if (auto e = ParseLabels(p, end)) return e;
    if (auto e = ParseFeatures(p, end)) return e;
    if (auto e = CheckUnique(row_start, label_start)) return e;
    out_.row_offsets[++row_] = nnz_;
    label_ends.push_back(labels.size());
    return std::nullopt;
  }

  std::vector<uint32_t> labels;
  std::vector<uint64_t> label_ends;  // local offsets, one per row
  uint32_t seen_features = 0;        // max feature id + 1
  uint32_t seen_labels = 0;

 private:
  std::optional<LineError> ParseLabels(const char*& p, const char* end) {
    if (p != end && (*p == ' ' || *p == '\t')) return std::nullopt;  // a row without labels
    while (true) {
      uint32_t label;
      if (!ParseUint(p, end, label)) return Unexpected(p, end, "label id");
      if (max_labels_ != 0 && label >= max_labels_) {
        return LineError{"label id " + std::to_string(label) + " out of range (L = " +
                         std::to_string(max_labels_) + ")"};
      }
      if (label >= kMaxDimension) return TooLarge("label", label);
      seen_labels = std::max(seen_labels, label + 1);
      labels.push_back(label);
      if (p == end || *p == ' ' || *p == '\t') return std::nullopt;
      if (*p != ',') return Unexpected(p, end, "',' or a space after a label");
      ++p;
    }
  }

  std::optional<LineError> ParseFeatures(const char*& p, const char* end) {
    const uint64_t capacity = out_.feature_ids.size();
    while (true) {
      while (p != end && (*p == ' ' || *p == '\t')) ++p;
      if (p == end) return std::nullopt;
      uint32_t id;
      if (!ParseUint(p, end, id)) return Unexpected(p, end, "feature id");
      if (p == end || *p != ':') return Unexpected(p, end, "':' after a feature id");
      ++p;
      float value;
      auto [next, ec] = fast_float::from_chars(p, end, value);
      if (ec != std::errc()) return Unexpected(p, end, "a feature value");
      p = next;
      if (!std::isfinite(value)) return LineError{"value of feature " + std::to_string(id) +
                                                  " is not finite"};
      if (p != end && *p != ' ' && *p != '\t') return Unexpected(p, end, "a space after a value");
      if (max_features_ != 0 && id >= max_features_) {
        return LineError{"feature id " + std::to_string(id) + " out of range (D = " +
                         std::to_string(max_features_) + ")"};
      }
      if (id >= kMaxDimension) return TooLarge("feature", id);
      if (nnz_ >= capacity) return LineError{"more features than ':' separators"};
      seen_features = std::max(seen_features, id + 1);
      out_.feature_ids[nnz_] = id;
      out_.values[nnz_++] = value;
    }
  }

  std::optional<LineError> CheckUnique(uint64_t row_start, size_t label_start) {
    auto ids = std::span(out_.feature_ids).subspan(row_start, nnz_ - row_start);
    if (auto dup = FindDuplicate(ids)) {
      return LineError{"duplicate feature id " + std::to_string(*dup) + " in one row"};
    }
    if (auto dup = FindDuplicate(std::span(labels).subspan(label_start))) {
      return LineError{"duplicate label id " + std::to_string(*dup) + " in one row"};
    }
    return std::nullopt;
  }

  std::optional<uint32_t> FindDuplicate(std::span<const uint32_t> ids) {
    if (std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end()) {
      return std::nullopt;  // strictly increasing: the usual case, no copy needed
    }
    scratch_.assign(ids.begin(), ids.end());
    std::sort(scratch_.begin(), scratch_.end());
    auto it = std::adjacent_find(scratch_.begin(), scratch_.end());
    if (it == scratch_.end()) return std::nullopt;
    return *it;
  }

  static LineError TooLarge(const char* what, uint32_t id) {
    return LineError{std::string(what) + " id " + std::to_string(id) + " is too large (ids must be below " +
                     std::to_string(kMaxDimension) + ")"};
  }

  static LineError Unexpected(const char* p, const char* end, const std::string& expected) {
    if (p == end) return LineError{"line ends where " + expected + " was expected"};
    std::string found(p, std::min<size_t>(static_cast<size_t>(end - p), 12));
    for (char& c : found) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    return LineError{"expected " + expected + ", found \"" + found + "\""};
  }

  Dataset& out_;
  uint64_t row_;
  uint64_t nnz_;
  uint32_t max_features_;
  uint32_t max_labels_;
  std::vector<uint32_t> scratch_;
};

struct ThreadResult {
  std::vector<uint32_t> labels;
  std::vector<uint64_t> label_ends;
  uint32_t seen_features = 0;
  uint32_t seen_labels = 0;
  std::optional<DataError> error;
};

void ParseRange(const InputFile& file, uint64_t begin, uint64_t end, uint64_t first_line,
                uint64_t first_row, uint64_t first_nnz, const SparseReadOptions& opt,
                Dataset& out, ThreadResult& result) {
  RangeParser parser(out, first_row, first_nnz, opt.num_features, opt.num_labels);
  LineBlocks blocks(file, begin, end, first_line);
  for (std::string_view b = blocks.Next(); !b.empty(); b = blocks.Next()) {
    std::optional<DataError> error;
    ForEachLine(b, blocks.block_first_line(), [&](std::string_view line, uint64_t number) {
      if (error) return;
      if (auto e = parser.ParseLine(line)) error.emplace(file.path(), number, e->reason);
    });
    if (error) {
      result.error = std::move(error);
      return;
    }
  }
  result.labels = std::move(parser.labels);
  result.label_ends = std::move(parser.label_ends);
  result.seen_features = parser.seen_features;
  result.seen_labels = parser.seen_labels;
}

void CheckDimensions(const InputFile& file, uint64_t header_rows, uint64_t rows) {
  if (rows == 0) throw DataError(file.path(), 0, "no data rows");
  if (header_rows != rows) {
    throw DataError(file.path(), 1,
                    "header says " + std::to_string(header_rows) + " rows but the file has " +
                        std::to_string(rows));
  }
}

}  // namespace

Dataset ReadSparseText(const std::string& path, const SparseReadOptions& options) {
  InputFile file(path);
  return ReadSparseText(file, options);
}

Dataset ReadSparseText(const InputFile& file, const SparseReadOptions& options) {
  const std::string& path = file.path();
  if (file.size() == 0) throw DataError(path, 0, "empty file");
  SparseReadOptions opt = options;
  uint64_t data_begin = Utf8BomLength(file);
  if (data_begin == file.size()) throw DataError(path, 0, "empty file (only a byte-order mark)");
  std::optional<uint64_t> header_rows;
  if (opt.has_header) {
    Header h = ReadHeader(file, data_begin);
    if (h.features == 0 || h.labels == 0) throw DataError(path, 1, "header has D = 0 or L = 0");
    opt.num_features = h.features;
    opt.num_labels = h.labels;
    data_begin = h.data_begin;
    header_rows = h.rows;
  }
  const uint64_t first_line = opt.has_header ? 2 : 1;
  const size_t parts = std::clamp<uint64_t>((file.size() - data_begin) >> 22, 1,
                                            static_cast<uint64_t>(std::max(opt.threads, 1)));
  const std::vector<uint64_t> bounds = SplitAtLines(file, data_begin, file.size(), parts);
  const size_t ranges = bounds.size() - 1;

  std::vector<RangeCounts> counts(ranges);
  std::vector<std::exception_ptr> failures(ranges);
#pragma omp parallel for num_threads(ranges) schedule(static, 1)
  for (size_t r = 0; r < ranges; ++r) {
    try {
      counts[r] = CountRange(file, bounds[r], bounds[r + 1]);
    } catch (...) {
      failures[r] = std::current_exception();
    }
  }
  for (auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }

  uint64_t rows = 0, nnz = 0;
  for (auto& c : counts) rows += c.lines, nnz += c.colons;
  if (header_rows) CheckDimensions(file, *header_rows, rows);
  if (rows == 0) throw DataError(path, 0, "no data rows");

  Dataset out;
  out.row_offsets.assign(rows + 1, 0);
  out.feature_ids.resize(nnz);
  out.values.resize(nnz);
  std::vector<uint64_t> first_lines(ranges, first_line), first_rows(ranges, 0), first_nnz(ranges, 0);
  for (size_t r = 1; r < ranges; ++r) {
    first_lines[r] = first_lines[r - 1] + counts[r - 1].lines;
    first_rows[r] = first_rows[r - 1] + counts[r - 1].lines;
    first_nnz[r] = first_nnz[r - 1] + counts[r - 1].colons;
  }
  std::vector<ThreadResult> results(ranges);
#pragma omp parallel for num_threads(ranges) schedule(static, 1)
  for (size_t r = 0; r < ranges; ++r) {
    try {
      ParseRange(file, bounds[r], bounds[r + 1], first_lines[r], first_rows[r], first_nnz[r], opt,
                 out, results[r]);
    } catch (const DataError& e) {
      results[r].error = e;
    } catch (...) {
      failures[r] = std::current_exception();
    }
  }
  for (auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  for (auto& res : results) {
    if (res.error) throw *res.error;
  }
  if (out.row_offsets.back() != nnz) {
    throw DataError(path, 0, "feature count mismatch while parsing (stray ':' characters?)");
  }

  size_t total_labels = 0;
  for (auto& res : results) total_labels += res.labels.size();
  out.label_ids.reserve(total_labels);
  out.label_offsets.reserve(rows + 1);
  for (auto& res : results) {
    const uint64_t base = out.label_ids.size();
    for (uint64_t end : res.label_ends) out.label_offsets.push_back(base + end);
    out.label_ids.insert(out.label_ids.end(), res.labels.begin(), res.labels.end());
    out.num_features = std::max(out.num_features, res.seen_features);
    out.num_labels = std::max(out.num_labels, res.seen_labels);
    res = ThreadResult{};
  }
  out.num_features = std::max(out.num_features, opt.num_features);
  out.num_labels = std::max(out.num_labels, opt.num_labels);
  return out;
}

}  // namespace sparsebench
