#include "datasets/reader.h"

#include <filesystem>
#include <stdexcept>

#include "datasets/line_blocks.h"

namespace sparsebench {

namespace {

constexpr Format kFormats[] = {Format::kXmc, Format::kLibsvm, Format::kCsv, Format::kFastText};

}  // namespace

Format ParseFormat(std::string_view name) {
  for (Format format : kFormats) {
    if (FormatName(format) == name) return format;
  }
  throw std::invalid_argument("unknown format '" + std::string(name) +
                              "' (known: xmc, libsvm, csv, fasttext)");
}

std::vector<std::string> FormatNames() {
  std::vector<std::string> names;
  for (Format format : kFormats) names.emplace_back(FormatName(format));
  return names;
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kXmc: return "xmc";
    case Format::kLibsvm: return "libsvm";
    case Format::kCsv: return "csv";
    case Format::kFastText: return "fasttext";
  }
  return "?";
}

Format GuessFormat(std::string_view path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".csv") return Format::kCsv;
  if (ext == ".ft" || ext == ".fasttext") return Format::kFastText;
  return Format::kXmc;
}

bool IsTextFormat(Format format) { return format == Format::kCsv || format == Format::kFastText; }

Dataset ReadDataset(const InputFile& file, Format format, const ReadOptions& options) {
  if (IsTextFormat(format)) {
    TextReadOptions text;
    text.num_labels = options.num_labels;
    text.label_names = options.label_names;
    return format == Format::kCsv ? ReadZhangCsv(file, text) : ReadFastTextFile(file, text);
  }
  SparseReadOptions sparse;
  sparse.has_header = format == Format::kXmc;
  sparse.threads = options.threads;
  sparse.num_features = options.num_features;
  sparse.num_labels = options.num_labels;
  return ReadSparseText(file, sparse);
}

Dataset ReadDataset(const std::string& path, Format format, const ReadOptions& options) {
  InputFile file(path);
  Dataset data = ReadDataset(file, format, options);
  data.name = std::filesystem::path(path).parent_path().filename().string() + "/" +
              std::filesystem::path(path).filename().string();
  return data;
}

}  // namespace sparsebench
