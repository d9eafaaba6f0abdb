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

[[noreturn]] void BadLine(size_t number, std::string_view line, const std::string& reason) {
  throw std::runtime_error(fmt::format("fastText predictions, line {}: {} in '{}'", number, reason,
                                       line.substr(0, 200)));
}

uint32_t ParseLabel(std::string_view token, uint32_t num_labels, size_t number,
                    std::string_view line) {
  uint32_t id = 0;
  const char* end = token.data() + token.size();
  const char* digits = token.data() + std::min(token.size(), kLabelPrefix.size());
  auto [stop, error] = std::from_chars(digits, end, id);
  if (!token.starts_with(kLabelPrefix) || error != std::errc() || stop != end) {
    BadLine(number, line, fmt::format("'{}' is not __label__<id>", token));
  }
  if (id >= num_labels) {
    BadLine(number, line, fmt::format("label {} is out of range ({} labels)", id, num_labels));
  }
  return id;
}

float ParseScore(std::string_view token, size_t number, std::string_view line) {
  float score = 0;
  auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), score);
  if (error != std::errc() || stop != token.data() + token.size() || !std::isfinite(score)) {
    BadLine(number, line, fmt::format("'{}' is not a probability", token));
  }
  return score;
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

void ParsePredictionLine(std::string_view line, size_t number, uint32_t k, uint32_t num_labels,
                         uint32_t* ids, float* scores) {
  const std::vector<std::string_view> tokens = SplitSpaces(line);
  if (tokens.size() % 2 != 0) BadLine(number, line, "a label without a probability");
  if (tokens.size() / 2 > k) BadLine(number, line, fmt::format("more than {} labels", k));
  for (size_t i = 0; i < tokens.size(); i += 2) {
    ids[i / 2] = ParseLabel(tokens[i], num_labels, number, line);
    scores[i / 2] = ParseScore(tokens[i + 1], number, line);
  }
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

TopK ParseFastTextPredictions(std::istream& in, size_t rows, uint32_t k, uint32_t num_labels) {
  if (k == 0) throw std::invalid_argument("fastText predictions need k >= 1");
  TopK top{k, std::vector<uint32_t>(rows * k, std::numeric_limits<uint32_t>::max()),
           std::vector<float>(rows * k, -std::numeric_limits<float>::infinity())};
  std::string line;
  for (size_t r = 0; r < rows; ++r) {
    if (!std::getline(in, line)) {
      throw std::runtime_error(fmt::format("fastText predictions: {} lines for {} rows", r, rows));
    }
    ParsePredictionLine(line, r + 1, k, num_labels, &top.ids[r * k], &top.scores[r * k]);
  }
  if (std::getline(in, line)) {
    throw std::runtime_error(fmt::format("fastText predictions: more lines than {} rows", rows));
  }
  return top;
}

void WriteFastTextRows(const Dataset& data, std::span<const uint32_t> rows, FastTextRows format,
                       const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary);
  std::string line;
  for (const uint32_t r : rows) {
    line.clear();
    for (uint32_t label : format.labels ? data.labels(r) : std::span<const uint32_t>()) {
      fmt::format_to(std::back_inserter(line), "__label__{} ", label);
    }
    if (format.text) {
      line += NormalizeForFastText(data.text.at(r));
    } else {
      AppendFeatureTokens(data.row(r), format.repeat_values, line);
    }
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::vector<std::string> ReadTunedArgs(const std::filesystem::path& dump,
                                       const std::filesystem::path& autotune_log) {
  std::vector<std::string> args;
  std::ifstream dumped(dump);
  for (std::string key, value; dumped >> key >> value;) {
    if (key != "model") args.insert(args.end(), {"-" + key, value});
  }
  std::ifstream log(autotune_log);
  bool in_best = false;
  for (std::string line; std::getline(log, line);) {
    in_best |= line.starts_with("Best selected args");
    if (in_best && line.starts_with("lr = ") && !args.empty()) {
      args.insert(args.end(), {"-lr", line.substr(5)});
      return args;
    }
  }
  throw std::runtime_error("fastText autotune left no readable arguments in " + dump.string() +
                           " and " + autotune_log.string());
}

}  // namespace sparsebench
