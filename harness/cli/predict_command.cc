#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "datasets/reader.h"
#include "engine/text_learner.h"
#include "harness/cli/commands.h"

namespace sparsebench::cli {
namespace {

struct PredictArgs {
  std::string model;
  uint32_t top_k = 1;
  bool csv = false;
  size_t max_line_bytes = size_t{1} << 20;
};

void PrintPrediction(const TextLearner& learner, size_t line, const TopK& top) {
  std::string out = fmt::format("{}", line);
  for (uint32_t i = 0; i < top.k; ++i) {
    if (top.ids[i] == UINT32_MAX) break;
    out += fmt::format("\t{}\t{:.4f}", learner.label_names()[top.ids[i]], top.scores[i]);
  }
  fmt::print("{}\n", out);
}

// One line per input line: "N<TAB>label<TAB>score..." or "N<TAB>error: reason"; a bad line
// never stops the others.
void RunPredict(const PredictArgs& args) {
  TrainOptions options;
  const TextLearner learner(args.model, options);
  const uint32_t k = std::min<uint32_t>(args.top_k, static_cast<uint32_t>(learner.label_names().size()));
  if (args.csv) {
    const Dataset data = ReadZhangCsv("/dev/stdin");
    for (size_t r = 0; r < data.rows(); ++r) PrintPrediction(learner, r + 1, learner.PredictText(data.text.at(r), k));
    return;
  }
  std::string line;
  for (size_t n = 1; std::getline(std::cin, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) {
      fmt::print("{}\terror: empty line\n", n);
    } else if (line.size() > args.max_line_bytes) {
      fmt::print("{}\terror: line of {} bytes is longer than --max-line-bytes {}\n", n, line.size(), args.max_line_bytes);
    } else {
      PrintPrediction(learner, n, learner.PredictText(line, k));
    }
  }
}

}  // namespace

void AddPredictCommand(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand("predict", "Labels for raw text on stdin (one document per line) from a text model");
  cmd->add_option("--model", args->model, "A model saved by `train --engine text --save`")->required();
  cmd->add_option("--top-k", args->top_k, "Labels per line, best first")->capture_default_str()->check(CLI::Range(1u, 1000u));
  cmd->add_flag("--csv", args->csv, "stdin is a Zhang CSV file (the label column is ignored)");
  cmd->add_option("--max-line-bytes", args->max_line_bytes, "Longer lines get an error")->capture_default_str();
  cmd->callback([args] { RunPredict(*args); });
}

}  // namespace sparsebench::cli
