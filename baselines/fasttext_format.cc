#include "baselines/fasttext_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace sparsebench {
namespace {

constexpr float kMaxRepeats = 10;
constexpr std::string_view kLabelPrefix = "__label__";

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool StartsWithBreakTag(std::string_view text) {
  constexpr std::string_view kTag = "<br />";
  if (text.size() < kTag.size()) return false;
  return std::equal(kTag.begin(), kTag.end(), text.begin(),
                    [](char tag, char c) { return tag == LowerAscii(c); });
}

std::string SpacePunctuation(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = LowerAscii(text[i]);
    if (c == '<' && StartsWithBreakTag(text.substr(i))) {
      out += ' ';
      i += 5;
      continue;
    }
    switch (c) {
      case '"':
        break;
      case '.':
      case ',':
      case '(':
      case ')':
      case '!':
      case '?':
      case '\'':
        out.append({' ', c, ' '});
        break;
      case ';':
      case ':':
      case '\n':
      case '\r':
      case '\t':
      case '\v':
      case '\f':
      case '\0':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

uint32_t Repeats(float value, float smallest) {
  if (!(value > 0)) return 0;
  return static_cast<uint32_t>(std::clamp(std::round(value / smallest), 1.0f, kMaxRepeats));
}

void AppendFeatureTokens(const SparseRow& row, bool repeat_values, std::string& line) {
  float smallest = std::numeric_limits<float>::infinity();
  for (float value : row.values) smallest = value > 0 ? std::min(smallest, value) : smallest;
  for (size_t i = 0; i < row.features.size(); ++i) {
    const uint32_t times = repeat_values ? Repeats(row.values[i], smallest) : 1;
    for (uint32_t t = 0; t < times; ++t) {
      fmt::format_to(std::back_inserter(line), "f{} ", row.features[i]);
    }
  }
}

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> tokens;
  constexpr std::string_view kSpaces = " \t\r";
  for (size_t begin = line.find_first_not_of(kSpaces); begin != std::string_view::npos;) {
    const size_t end = std::min(line.find_first_of(kSpaces, begin), line.size());
    tokens.push_back(line.substr(begin, end - begin));
    begin = line.find_first_not_of(kSpaces, end);
  }
  return tokens;
}

}  // namespace

std::string NormalizeForFastText(std::string_view text) {
  const std::string spaced = SpacePunctuation(text);
  std::string out;
  for (std::string_view token : SplitSpaces(spaced)) {
    if (token.starts_with(kLabelPrefix)) token.remove_prefix(token.find_first_not_of('_'));
    if (!out.empty()) out += ' ';
    out += token;
  }
  return out;
}

std::string FastTextLine(const Dataset& data, uint32_t row, FastTextRows format) {
  std::string line;
  for (uint32_t label : format.labels ? data.labels(row) : std::span<const uint32_t>()) {
    fmt::format_to(std::back_inserter(line), "__label__{} ", label);
  }
  if (format.text) {
    line += NormalizeForFastText(data.text.at(row));
  } else {
    AppendFeatureTokens(data.row(row), format.repeat_values, line);
  }
  return line;
}

std::optional<uint32_t> ParseFastTextLabel(std::string_view label) {
  if (!label.starts_with(kLabelPrefix) || label.size() == kLabelPrefix.size()) return std::nullopt;
  uint32_t id = 0;
  const char* end = label.data() + label.size();
  auto [stop, error] = std::from_chars(label.data() + kLabelPrefix.size(), end, id);
  if (error != std::errc() || stop != end) return std::nullopt;
  return id;
}

void WriteFastTextRows(const Dataset& data, std::span<const uint32_t> rows, FastTextRows format,
                       const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary);
  std::string line;
  for (const uint32_t r : rows) {
    line = FastTextLine(data, r, format);
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace sparsebench
