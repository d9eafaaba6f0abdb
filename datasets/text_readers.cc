#include "datasets/text_readers.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include "datasets/data_error.h"
#include "datasets/line_blocks.h"
#include "datasets/utf8.h"

namespace sparsebench {
namespace {

void CheckText(const std::string& path, uint64_t line, std::string_view text) {
  if (text.find('\0') != std::string_view::npos) throw DataError(path, line, "NUL byte in text");
  if (size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    throw DataError(path, line, "invalid UTF-8 at byte " + std::to_string(bad) + " of the text");
  }
}

// Zhang et al. CSV, one record at a time; records may span physical lines inside quotes.
// Each record's fields go to `on_record` (with the line it starts on). With a byte limit,
// the bytes of a longer record are dropped as they come (the parse goes on, so the next
// record is found) and the record is reported as too long.
class CsvParser {
 public:
  using RecordFn = std::function<void(uint64_t line, std::vector<std::string>& fields, bool too_long)>;

  CsvParser(const std::string& path, RecordFn on_record, uint64_t max_record_bytes = 0)
      : path_(path), on_record_(std::move(on_record)), max_record_bytes_(max_record_bytes) {}

  void Feed(std::string_view block) {
    if (at_start_ && !block.empty()) {
      at_start_ = false;
      if (block.starts_with(kUtf8Bom)) block.remove_prefix(kUtf8Bom.size());  // fed whole by callers
    }
    for (size_t i = 0; i < block.size(); ++i) {
      if (state_ == State::kQuoted) i = AppendQuotedRun(block, i);
      if (i == block.size()) break;
      if (block[i] == '\n') ++line_;
      Step(block[i]);
    }
  }

  void Finish() {
    if (state_ == State::kQuoted || state_ == State::kEscape) {
      throw DataError(path_, record_line_, "unterminated quoted field");
    }
    if (state_ != State::kFieldStart || !fields_.empty()) {
      EndField();
      EndRecord();
    }
  }

  uint64_t records() const { return records_; }
  uint64_t line() const { return line_; }

 private:
  enum class State { kFieldStart, kUnquoted, kQuoted, kEscape, kQuoteInQuoted };

  // Copies plain bytes of a quoted field in one go; returns the index of the next special one.
  size_t AppendQuotedRun(std::string_view block, size_t i) {
    size_t j = i;
    while (j < block.size() && block[j] != '"' && block[j] != '\\' && block[j] != '\n') ++j;
    Append(block.substr(i, j - i));
    return j;
  }

  void Append(std::string_view bytes) {
    record_bytes_ += bytes.size();
    if (max_record_bytes_ != 0 && record_bytes_ > max_record_bytes_) {
      too_long_ = true;
      field_.clear();
      return;
    }
    field_.append(bytes);
  }
  void Append(char c) {
    if (max_record_bytes_ != 0 && ++record_bytes_ > max_record_bytes_) {
      too_long_ = true;
      field_.clear();
      return;
    }
    field_.push_back(c);
  }

  void Step(char c) {
    switch (state_) {
      case State::kFieldStart:
        if (c == '"') {
          state_ = State::kQuoted;
        } else if (c == ',') {
          EndField();
        } else if (c == '\n') {
          EndField();
          EndRecord();
        } else if (c != '\r') {
          Append(c);
          state_ = State::kUnquoted;
        }
        break;
      case State::kUnquoted:
        if (c == ',' || c == '\n') {
          EndField();
          state_ = State::kFieldStart;
          if (c == '\n') EndRecord();
        } else if (c == '"') {
          throw DataError(path_, line_, "quote inside an unquoted field");
        } else if (c != '\r') {
          Append(c);
        }
        break;
      case State::kQuoted:
        if (c == '"') {
          state_ = State::kQuoteInQuoted;
        } else if (c == '\\') {
          state_ = State::kEscape;
        } else {
          Append(c);
        }
        break;
      case State::kEscape:
        state_ = State::kQuoted;
        if (c == 'n') {
          Append('\n');
        } else {
          Append('\\');
          Step(c);
        }
        break;
      case State::kQuoteInQuoted:
        if (c == '"') {
          Append('"');
          state_ = State::kQuoted;
        } else if (c == ',' || c == '\n') {
          EndField();
          state_ = State::kFieldStart;
          if (c == '\n') EndRecord();
        } else if (c != '\r') {
          throw DataError(path_, line_, "unexpected character after a closing quote");
        }
        break;
    }
  }

  void EndField() {
    fields_.push_back(std::move(field_));
    field_.clear();
    state_ = State::kFieldStart;
  }

  void EndRecord() {
    const uint64_t line = record_line_;
    record_line_ = line_;
    if (fields_.size() == 1 && fields_[0].empty() && !too_long_) {
      throw DataError(path_, line, "empty line");
    }
    if (expected_fields_ == 0) expected_fields_ = fields_.size();
    if (fields_.size() < 2 || fields_.size() != expected_fields_) {
      throw DataError(path_, line,
                      "expected " + std::to_string(std::max<size_t>(expected_fields_, 2)) +
                          " fields (\"label\",\"text\" or \"label\",\"title\",\"content\"), found " +
                          std::to_string(fields_.size()));
    }
    ++records_;
    on_record_(line, fields_, too_long_);
    fields_.clear();
    record_bytes_ = 0;
    too_long_ = false;
  }

  const std::string& path_;
  RecordFn on_record_;
  uint64_t max_record_bytes_;
  State state_ = State::kFieldStart;
  std::string field_;
  std::vector<std::string> fields_;
  size_t expected_fields_ = 0;
  uint64_t line_ = 1;
  uint64_t record_line_ = 1;
  uint64_t records_ = 0;
  uint64_t record_bytes_ = 0;
  bool too_long_ = false;
  bool at_start_ = true;
};

uint32_t ParseCsvLabel(const std::string& path, uint64_t line, std::string_view field, uint32_t num_labels) {
  uint32_t label = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), label);
  if (ec != std::errc() || end != field.data() + field.size() || label == 0) {
    throw DataError(path, line, "label \"" + std::string(field.substr(0, 20)) +
                                    "\" is not a positive integer (labels are 1-based)");
  }
  if (num_labels != 0 && label > num_labels) {
    throw DataError(path, line, "label " + std::to_string(label) + " out of range (" +
                                    std::to_string(num_labels) + " classes)");
  }
  if (label > kMaxTextClasses) {
    throw DataError(path, line, "label " + std::to_string(label) + " is too large (classes are numbered 1 to at most " +
                                    std::to_string(kMaxTextClasses) + ")");
  }
  return label;
}

void NameNumericLabels(Dataset& data) {
  data.label_names.clear();
  data.label_names.reserve(data.num_labels);
  for (uint32_t l = 1; l <= data.num_labels; ++l) data.label_names.push_back(std::to_string(l));
}

// Feeds a file to the parser in blocks of at most 1 MiB (the first block holds any BOM whole).
void FeedFile(const InputFile& file, CsvParser& parser) {
  std::vector<char> buffer(static_cast<size_t>(std::min<uint64_t>(LineBlocks::kBlockBytes, file.size())));
  for (uint64_t offset = 0; offset < file.size();) {
    const size_t got = file.ReadAt(offset, buffer.data(), buffer.size());
    if (got == 0) throw DataError(file.path(), 0, "file shrank while being read");
    parser.Feed(std::string_view(buffer.data(), got));
    offset += got;
  }
}

}  // namespace

Dataset ReadZhangCsv(const std::string& path, const TextReadOptions& options) {
  InputFile file(path);
  return ReadZhangCsv(file, options);
}

Dataset ReadZhangCsv(const InputFile& file, const TextReadOptions& options) {
  const std::string& path = file.path();
  if (file.size() == 0) throw DataError(path, 0, "empty file");
  Dataset out;
  out.num_labels = options.num_labels;
  CsvParser parser(path, [&](uint64_t line, std::vector<std::string>& fields, bool) {
    const uint32_t label = ParseCsvLabel(path, line, fields[0], options.num_labels);
    out.num_labels = std::max(out.num_labels, label);
    out.label_ids.push_back(label - 1);
    out.label_offsets.push_back(out.label_ids.size());
    const size_t text_begin = out.text.chars.size();
    for (size_t f = 1; f < fields.size(); ++f) {
      if (f > 1) out.text.chars.append(options.field_separator);
      out.text.chars.append(fields[f]);
    }
    out.text.offsets.push_back(out.text.chars.size());
    CheckText(path, line, std::string_view(out.text.chars).substr(text_begin));
  });
  FeedFile(file, parser);
  parser.Finish();
  if (out.rows() == 0) throw DataError(path, 0, "no records");
  NameNumericLabels(out);
  return out;
}

uint64_t ReadZhangCsvStream(int fd, const std::string& name, const CsvStreamOptions& options,
                            const std::function<void(const CsvStreamRecord&)>& on_record) {
  std::string text;
  CsvParser parser(name, [&](uint64_t line, std::vector<std::string>& fields, bool too_long) {
    text.clear();
    if (!too_long) {
      for (size_t f = 1; f < fields.size(); ++f) {
        if (f > 1) text.append(options.field_separator);
        text.append(fields[f]);
      }
    }
    on_record(CsvStreamRecord{line, text, too_long});
  }, options.max_record_bytes);
  std::vector<char> buffer(size_t{64} << 10);
  size_t pending = 0;  // bytes held back so that a BOM is fed whole
  bool started = false;
  while (true) {
    const ssize_t got = ::read(fd, buffer.data() + pending, buffer.size() - pending);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw DataError(name, 0, std::string("read failed: ") + std::strerror(errno));
    const size_t filled = pending + static_cast<size_t>(got);
    if (!started && got != 0 && filled < kUtf8Bom.size() &&
        kUtf8Bom.starts_with(std::string_view(buffer.data(), filled))) {
      pending = filled;
      continue;
    }
    started = true;
    pending = 0;
    if (filled == 0) break;
    const std::string_view block(buffer.data(), filled);
    if (const size_t nul = block.find('\0'); nul != std::string_view::npos) {
      const auto lines_before = std::count(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
      throw DataError(name, parser.line() + static_cast<uint64_t>(lines_before), "NUL byte: the input is binary, not text");
    }
    parser.Feed(block);
    if (got == 0) break;
  }
  parser.Finish();
  return parser.records();
}

namespace {

constexpr std::string_view kLabelPrefix = "__label__";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

class LabelMap {
 public:
  LabelMap(const std::string& path, const std::vector<std::string>& fixed)
      : path_(path), fixed_(!fixed.empty()) {
    for (uint32_t i = 0; i < fixed.size(); ++i) ids_.emplace(fixed[i], i);
  }

  uint32_t Id(std::string_view name, uint64_t line) {
    auto it = ids_.find(std::string(name));
    if (it != ids_.end()) return it->second;
    if (fixed_) {
      throw DataError(path_, line, "label \"" + std::string(name) + "\" is not in the training data");
    }
    const auto id = static_cast<uint32_t>(ids_.size());
    ids_.emplace(std::string(name), id);
    return id;
  }

  // Names in id order (first appearance in the file, or the fixed order given).
  std::vector<std::string> Names() const {
    std::vector<std::string> names(ids_.size());
    for (auto& [name, id] : ids_) names[id] = name;
    return names;
  }

 private:
  const std::string& path_;
  bool fixed_;
  std::map<std::string, uint32_t, std::less<>> ids_;
};

void ParseFastTextLine(std::string_view line, uint64_t number, LabelMap& labels, Dataset& out,
                       const std::string& path) {
  size_t pos = 0;
  const size_t label_count_before = out.label_ids.size();
  while (true) {
    while (pos < line.size() && IsSpace(line[pos])) ++pos;
    if (line.substr(pos, kLabelPrefix.size()) != kLabelPrefix) break;
    size_t end = pos;
    while (end < line.size() && !IsSpace(line[end])) ++end;
    std::string_view name = line.substr(pos + kLabelPrefix.size(), end - pos - kLabelPrefix.size());
    if (name.empty()) throw DataError(path, number, "empty label after __label__");
    CheckText(path, number, name);
    out.label_ids.push_back(labels.Id(name, number));
    pos = end;
  }
  if (out.label_ids.size() == label_count_before) {
    throw DataError(path, number, "line does not start with a __label__ token");
  }
  std::sort(out.label_ids.begin() + static_cast<ptrdiff_t>(label_count_before), out.label_ids.end());
  out.label_ids.erase(std::unique(out.label_ids.begin() + static_cast<ptrdiff_t>(label_count_before),
                                  out.label_ids.end()),
                      out.label_ids.end());
  out.label_offsets.push_back(out.label_ids.size());
  std::string_view text = line.substr(pos);
  CheckText(path, number, text);
  out.text.push_back(text);
}

}  // namespace

Dataset ReadFastTextFile(const std::string& path, const TextReadOptions& options) {
  InputFile file(path);
  return ReadFastTextFile(file, options);
}

Dataset ReadFastTextFile(const InputFile& file, const TextReadOptions& options) {
  const std::string& path = file.path();
  if (file.size() == 0) throw DataError(path, 0, "empty file");
  Dataset out;
  LabelMap labels(path, options.label_names);
  const uint64_t begin = Utf8BomLength(file);
  if (begin == file.size()) throw DataError(path, 0, "empty file (only a byte-order mark)");
  LineBlocks blocks(file, begin, file.size(), 1);
  for (std::string_view b = blocks.Next(); !b.empty(); b = blocks.Next()) {
    ForEachLine(b, blocks.block_first_line(), [&](std::string_view line, uint64_t number) {
      if (line.empty()) throw DataError(path, number, "empty line");
      ParseFastTextLine(line, number, labels, out, path);
    });
  }
  out.label_names = labels.Names();
  out.num_labels = static_cast<uint32_t>(out.label_names.size());
  return out;
}

}  // namespace sparsebench
