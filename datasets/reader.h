#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/text_readers.h"
#include "datasets/xmc_reader.h"

namespace sparsebench {

enum class Format { kXmc, kLibsvm, kCsv, kFastText };

// "xmc", "libsvm", "csv" or "fasttext"; std::invalid_argument otherwise.
Format ParseFormat(std::string_view name);
std::string_view FormatName(Format format);
std::vector<std::string> FormatNames();  // every format, as ParseFormat takes them
// From the extension: .csv is csv, .ft/.fasttext fastText, anything else xmc.
Format GuessFormat(std::string_view path);
bool IsTextFormat(Format format);

struct ReadOptions {
  int threads = 1;
  // Dimensions of the training data, so a test file is checked against them (0 = none).
  uint32_t num_features = 0;
  uint32_t num_labels = 0;
  std::vector<std::string> label_names;
};

// Reads any supported format; text formats fill text and labels only.
Dataset ReadDataset(const std::string& path, Format format, const ReadOptions& options = {});
// The same from an open file or bytes in memory (see InputFile); `name` is left empty.
Dataset ReadDataset(const InputFile& file, Format format, const ReadOptions& options = {});

}  // namespace sparsebench
