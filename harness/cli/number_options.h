#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "engine/api/parse_number.h"

namespace sparsebench::cli {

using AnyRange = std::variant<NumberRange<int>, NumberRange<uint32_t>, NumberRange<uint64_t>,
                              NumberRange<double>>;

// One numeric option of the command line, as tests and fuzzing walk them.
struct NumberOption {
  std::string command;  // the subcommand path, e.g. "data gen"
  std::string name;     // e.g. "--lr"
  AnyRange range;       // what the number accepts
  // The option's text around the number, "{}" where it goes: "{}" for most, "0/{}" for --shard
  // (the number is N), "{}%" for --max-slowdown.
  std::string pattern = "{}";
};

// Adds options whose numbers ParseNumber reads (CLI11's own conversion never sees them), so a
// refusal says "--NAME: reason", and lists them. The help shows each option's range.
class NumberOptions {
 public:
  template <typename T>
  CLI::Option* Add(CLI::App& command, const std::string& name, std::function<void(T)> set,
                   NumberRange<T> range, const std::string& help);

  // Stores into `target`, whose value now the help shows as the default.
  template <typename T>
  CLI::Option* Add(CLI::App& command, const std::string& name, T& target, NumberRange<T> range,
                   const std::string& help);

  // An option whose text holds its number inside a pattern (see NumberOption); `parse` reads
  // the whole text and throws ConfigError("NAME: reason") when it is not valid.
  CLI::Option* AddPattern(CLI::App& command, const std::string& name,
                          std::function<void(const std::string&)> parse, AnyRange range,
                          const std::string& pattern, const std::string& type,
                          const std::string& help);

  const std::vector<NumberOption>& list() const { return list_; }

 private:
  std::vector<NumberOption> list_;
};

// The largest --max-slowdown accepted, in percent.
constexpr double kMaxSlowdownPercent = 1e6;

// "10%" or "10": a percentage, returned as a fraction; ConfigError("NAME: reason") otherwise.
double ParsePercent(std::string text, const std::string& name, const NumberRange<double>& range);

// "train", "data gen": the subcommand path of `command` below the top-level app.
std::string CommandPath(const CLI::App& command);

}  // namespace sparsebench::cli
