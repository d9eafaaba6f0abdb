#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "datasets/data_error.h"
#include "datasets/reader.h"
#include "engine/api/engine_error.h"
#include "engine/train/text_learner.h"
#include "harness/cli/commands.h"

namespace sparsebench::cli {
namespace {

const std::string kStdin = "<stdin>";

struct PredictArgs {
  std::string model;
  uint32_t top_k = 1;
  bool csv = false;
  uint64_t max_line_bytes = uint64_t{1} << 20;
};

void PrintPrediction(const TextLearner& learner, size_t line, const TopK& top) {
  std::string out = fmt::format("{}", line);
  for (uint32_t i = 0; i < top.k; ++i) {
    if (top.ids[i] == UINT32_MAX) break;
    out += fmt::format("\t{}\t{:.4f}", learner.label_names()[top.ids[i]], top.scores[i]);
  }
  fmt::print("{}\n", out);
}

// Lines of a stream (stdin: a file, a pipe, a terminal) read in blocks, the line limit
// applied while reading: a longer line is counted, not stored, so memory stays within the
// limit whatever comes in. A NUL byte means binary input and ends the run (DataError).
class LineReader {
 public:
  LineReader(int fd, size_t max_line_bytes) : fd_(fd), max_(max_line_bytes), buffer_(size_t{64} << 10, '\0') {}

  // Calls fn(number, line, bytes) per line without its '\n' (and '\r'); `line` is empty
  // when the line had more than max bytes, `bytes` its full length.
  template <typename Fn>
  void ForEach(Fn&& fn) {
    uint64_t number = 1, bytes = 0;
    std::string line;
    auto emit = [&] {
      const bool kept = bytes <= max_;
      if (kept && !line.empty() && line.back() == '\r') line.pop_back();
      fn(number++, std::string_view(kept ? line : std::string()), bytes);
      line.clear();
      bytes = 0;
    };
    while (true) {
      const ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw DataError(kStdin, number, std::string("read failed: ") + std::strerror(errno));
      if (got == 0) break;
      std::string_view block(buffer_.data(), static_cast<size_t>(got));
      if (const size_t nul = block.find('\0'); nul != std::string_view::npos) {
        const auto lines_before = std::count(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
        throw DataError(kStdin, number + static_cast<uint64_t>(lines_before), "NUL byte: the input is binary, not text");
      }
      while (!block.empty()) {
        const size_t nl = block.find('\n');
        const std::string_view part = block.substr(0, nl);
        bytes += part.size();
        if (bytes <= max_) line.append(part);
        if (nl == std::string_view::npos) break;
        emit();
        block.remove_prefix(nl + 1);
      }
    }
    if (bytes > 0) emit();
  }

 private:
  int fd_;
  size_t max_;
  std::string buffer_;
};

// One line per input line: "N<TAB>label<TAB>score..." or "N<TAB>error: reason"; a bad line
// never stops the others.
void RunPredict(const PredictArgs& args) {
  TrainOptions options;
  const TextLearner learner(args.model, options);
  const uint32_t k = std::min<uint32_t>(args.top_k, static_cast<uint32_t>(learner.label_names().size()));
  if (args.csv) {
    CsvStreamOptions csv;
    csv.max_record_bytes = args.max_line_bytes;
    uint64_t n = 0;
    ReadZhangCsvStream(STDIN_FILENO, kStdin, csv, [&](const CsvStreamRecord& record) {
      ++n;
      if (record.too_long) {
        fmt::print("{}\terror: record longer than --max-line-bytes {}\n", n, args.max_line_bytes);
      } else {
        PrintPrediction(learner, n, learner.PredictText(record.text, k));
      }
    });
    return;
  }
  LineReader lines(STDIN_FILENO, args.max_line_bytes);
  lines.ForEach([&](uint64_t n, std::string_view line, uint64_t bytes) {
    if (bytes > args.max_line_bytes) {
      fmt::print("{}\terror: line of {} bytes is longer than --max-line-bytes {}\n", n, bytes, args.max_line_bytes);
    } else if (line.find_first_not_of(" \t") == std::string_view::npos) {
      fmt::print("{}\terror: empty line\n", n);
    } else {
      PrintPrediction(learner, n, learner.PredictText(line, k));
    }
  });
}

}  // namespace

void AddPredictCommand(CLI::App& app, NumberOptions& numbers) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand("predict", "Labels for raw text on stdin (one document per line) from a text model");
  cmd->add_option("--model", args->model, "A model saved by `train --engine text --save`")->required();
  numbers.Add(*cmd, "--top-k", args->top_k, {1, 1000}, "Labels per line, best first");
  cmd->add_flag("--csv", args->csv, "stdin is a Zhang CSV file (the label column is ignored)");
  numbers.Add(*cmd, "--max-line-bytes", args->max_line_bytes, {1, uint64_t{1} << 30},
              "Longer lines (CSV: records) get an error and are not stored");
  cmd->callback([args] { RunPredict(*args); });
}

}  // namespace sparsebench::cli
