#pragma once

// Shared by the spec and matrix targets: the input as a sparsebench command line, parsed the
// way the binary parses it (no subcommand runs). It exits 0 or 2, says why on 2, and every
// number it accepted lies in its option's documented range. `history check` has exit codes of
// its own: an error in its options exits 3 there.
#include <stdio.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/engine_error.h"
#include "fuzz/fuzz_util.h"
#include "harness/cli/command_line.h"
#include "harness/cli/commands.h"
#include "harness/cli/engines.h"

namespace sparsebench::fuzz {

// Words split at single spaces, tabs and newlines: two separators in a row give an empty word.
inline std::vector<std::string> ArgvWords(std::string_view input) {
  std::vector<std::string> words(1);
  for (char c : input) {
    if (c == ' ' || c == '\t' || c == '\n') {
      words.emplace_back();
    } else {
      words.back() += c;
    }
  }
  return words;
}

// The option `o` names, in the subcommand its command path names.
inline const CLI::Option* FindOption(CLI::App& app, const cli::NumberOption& o) {
  CLI::App* command = &app;
  for (const std::string& word : ArgvWords(o.command)) command = command->get_subcommand(word);
  return command->get_option(o.name);
}

// Every value a numeric option took is a number in its range (patterned ones, I/N and N%,
// are checked by their own parsers, through the same routine).
inline void CheckAcceptedNumbers(cli::CommandLine& cli) {
  for (const cli::NumberOption& o : cli.numbers().list()) {
    const CLI::Option* option = FindOption(cli.app(), o);
    if (option->count() == 0 || o.pattern != "{}") continue;
    for (const std::string& text : option->results()) {
      try {
        std::visit([&](const auto& range) { ParseNumber(text, o.name, range); }, o.range);
      } catch (const ConfigError& e) {
        std::fprintf(stderr, "%s accepted: %s\n", o.name.c_str(), e.what());
        FUZZ_REQUIRE(!"an accepted number lies in its option's range");
      }
    }
  }
}

inline void ParseCommandLine(std::string_view input) {
  if (input.size() > 2000) return;
  const std::vector<std::string> words = ArgvWords(input);
  std::vector<const char*> argv = {"sparsebench"};
  for (const std::string& w : words) argv.push_back(w.c_str());
  for (const std::string& w : words) {
    if (w == "-h" || w == "--help" || w == "--help-all")
      return;  // help goes to stdout: not of interest
  }
  char* said = nullptr;
  size_t said_bytes = 0;
  std::FILE* err = ::open_memstream(&said, &said_bytes);
  FUZZ_REQUIRE(err != nullptr);
  cli::CommandLine cli(BuiltinEngines());
  cli.ParseOnly();
  const int status = cli.Run(static_cast<int>(argv.size()), argv.data(), err);
  std::fclose(err);
  const std::string message(said, said_bytes);
  std::free(said);
  const CLI::App* history = cli.app().get_subcommand("history");
  const bool history_check = history->parsed() && history->get_subcommand("check")->parsed();
  FUZZ_REQUIRE(status == 0 || status == (history_check ? cli::kHistoryCheckError : 2));
  FUZZ_REQUIRE(status == 0 ? message.empty() : message.starts_with("error: "));
  if (status == 0) CheckAcceptedNumbers(cli);
}

}  // namespace sparsebench::fuzz
