#include "datasets/text_readers.h"

#include <algorithm>
#include <charconv>
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
class CsvParser {
 public:
  CsvParser(const std::string& path, const TextReadOptions& options, Dataset& out)
      : path_(path), options_(options), out_(out) {}

  void Feed(std::string_view block) {
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
    if (out_.rows() == 0) throw DataError(path_, 0, "no records");
  }

 private:
  enum class State { kFieldStart, kUnquoted, kQuoted, kEscape, kQuoteInQuoted };

  // Copies plain bytes of a quoted field in one go; returns the index of the next special one.
  size_t AppendQuotedRun(std::string_view block, size_t i) {
    size_t j = i;
    while (j < block.size() && block[j] != '"' && block[j] != '\\' && block[j] != '\n') ++j;
    field_.append(block.substr(i, j - i));
    return j;
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
          field_.push_back(c);
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
          field_.push_back(c);
        }
        break;
      case State::kQuoted:
        if (c == '"') {
          state_ = State::kQuoteInQuoted;
        } else if (c == '\\') {
          state_ = State::kEscape;
        } else {
          field_.push_back(c);
        }
        break;
      case State::kEscape:
        state_ = State::kQuoted;
        if (c == 'n') {
          field_.push_back('\n');
        } else {
          field_.push_back('\\');
          Step(c);
        }
        break;
      case State::kQuoteInQuoted:
        if (c == '"') {
          field_.push_back('"');
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
    if (fields_.size() == 1 && fields_[0].empty()) {
      throw DataError(path_, line, "empty line");
    }
    if (expected_fields_ == 0) expected_fields_ = fields_.size();
    if (fields_.size() < 2 || fields_.size() != expected_fields_) {
      throw DataError(path_, line,
                      "expected " + std::to_string(std::max<size_t>(expected_fields_, 2)) +
                          " fields (\"label\",\"text\" or \"label\",\"title\",\"content\"), found " +
                          std::to_string(fields_.size()));
    }
    out_.label_ids.push_back(ParseLabel(fields_[0], line));
    out_.label_offsets.push_back(out_.label_ids.size());
    const size_t text_begin = out_.text.chars.size();
    for (size_t f = 1; f < fields_.size(); ++f) {
      if (f > 1) out_.text.chars.append(options_.field_separator);
      out_.text.chars.append(fields_[f]);
    }
    out_.text.offsets.push_back(out_.text.chars.size());
    CheckText(path_, line, std::string_view(out_.text.chars).substr(text_begin));
    fields_.clear();
  }

  uint32_t ParseLabel(std::string_view field, uint64_t line) {
    uint32_t label = 0;
    auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), label);
    if (ec != std::errc() || end != field.data() + field.size() || label == 0) {
      throw DataError(path_, line, "label \"" + std::string(field.substr(0, 20)) +
                                       "\" is not a positive integer (labels are 1-based)");
    }
    if (options_.num_labels != 0 && label > options_.num_labels) {
      throw DataError(path_, line, "label " + std::to_string(label) + " out of range (" +
                                       std::to_string(options_.num_labels) + " classes)");
    }
    out_.num_labels = std::max(out_.num_labels, label);
    return label - 1;
  }

  const std::string& path_;
  const TextReadOptions& options_;
  Dataset& out_;
  State state_ = State::kFieldStart;
  std::string field_;
  std::vector<std::string> fields_;
  size_t expected_fields_ = 0;
  uint64_t line_ = 1;
  uint64_t record_line_ = 1;
};

void NameNumericLabels(Dataset& data) {
  data.label_names.clear();
  for (uint32_t l = 1; l <= data.num_labels; ++l) data.label_names.push_back(std::to_string(l));
}

}  // namespace

Dataset ReadZhangCsv(const std::string& path, const TextReadOptions& options) {
  InputFile file(path);
  if (file.size() == 0) throw DataError(path, 0, "empty file");
  Dataset out;
  out.num_labels = options.num_labels;
  CsvParser parser(path, options, out);
  std::vector<char> buffer(LineBlocks::kBlockBytes);
  for (uint64_t offset = 0; offset < file.size();) {
    const size_t got = file.ReadAt(offset, buffer.data(), buffer.size());
    if (got == 0) throw DataError(path, 0, "file shrank while being read");
    parser.Feed(std::string_view(buffer.data(), got));
    offset += got;
  }
  parser.Finish();
  NameNumericLabels(out);
  return out;
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
  if (file.size() == 0) throw DataError(path, 0, "empty file");
  Dataset out;
  LabelMap labels(path, options.label_names);
  LineBlocks blocks(file, 0, file.size(), 1);
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
