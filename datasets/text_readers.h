#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/dataset.h"

namespace sparsebench {

struct TextReadOptions {
  uint32_t num_labels = 0;               // CSV: labels must be <= this when set (test files)
  std::vector<std::string> label_names;  // fastText: the training file's labels, when set
  std::string field_separator = " | ";   // joins title and content of 3-column CSV
};

class InputFile;

// Zhang et al. CSV ("label","text" or "label","title","content"): quoted fields, doubled
// quotes, "\n" escapes, 1-based labels (at most kMaxTextClasses) stored 0-based. Fills
// labels and text, not features. A UTF-8 byte-order mark at the start is skipped.
Dataset ReadZhangCsv(const std::string& path, const TextReadOptions& options = {});
Dataset ReadZhangCsv(const InputFile& file, const TextReadOptions& options = {});

struct CsvStreamOptions {
  uint64_t max_record_bytes = 0;        // longer records come as too_long, unstored; 0: no limit
  std::string field_separator = " | ";
};
struct CsvStreamRecord {
  uint64_t line;          // where the record starts
  std::string_view text;  // the fields after the label, joined; empty when too_long
  bool too_long;
};
// Zhang CSV from a stream (stdin, a pipe), one record at a time, without keeping earlier
// records: memory stays within about max_record_bytes. The label column is not checked.
// A malformed record is a DataError naming `name` and its line. Returns the record count.
uint64_t ReadZhangCsvStream(int fd, const std::string& name, const CsvStreamOptions& options,
                            const std::function<void(const CsvStreamRecord&)>& on_record);

// fastText format: "__label__A __label__B text ..." per line. A BOM at the start is skipped.
Dataset ReadFastTextFile(const std::string& path, const TextReadOptions& options = {});
Dataset ReadFastTextFile(const InputFile& file, const TextReadOptions& options = {});

}  // namespace sparsebench
