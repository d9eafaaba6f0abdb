#include "harness/cli/number_options.h"

#include <type_traits>

namespace sparsebench::cli {

std::string CommandPath(const CLI::App& command) {
  std::string path;
  for (const CLI::App* app = &command; app->get_parent() != nullptr; app = app->get_parent()) {
    path = app->get_name() + (path.empty() ? "" : " " + path);
  }
  return path;
}

template <typename T>
CLI::Option* NumberOptions::Add(CLI::App& command, const std::string& name,
                                std::function<void(T)> set, NumberRange<T> range,
                                const std::string& help) {
  CLI::Option* option = command.add_option_function<std::string>(
      name,
      [name, set = std::move(set), range](const std::string& text) {
        set(ParseNumber(text, name, range));
      },
      help + " [" + range.Describe() + "]");
  option->type_name(std::is_floating_point_v<T> ? "FLOAT" : std::is_signed_v<T> ? "INT" : "UINT");
  list_.push_back({CommandPath(command), name, range});
  return option;
}

template <typename T>
CLI::Option* NumberOptions::Add(CLI::App& command, const std::string& name, T& target,
                                NumberRange<T> range, const std::string& help) {
  CLI::Option* option = Add<T>(
      command, name, std::function<void(T)>([&target](T value) { target = value; }), range, help);
  option->default_str(NumberText(target));
  return option;
}

CLI::Option* NumberOptions::AddPattern(CLI::App& command, const std::string& name,
                                       std::function<void(const std::string&)> parse,
                                       AnyRange range, const std::string& pattern,
                                       const std::string& type, const std::string& help) {
  CLI::Option* option = command.add_option_function<std::string>(name, std::move(parse), help);
  option->type_name(type);
  list_.push_back({CommandPath(command), name, range, pattern});
  return option;
}

#define SPARSEBENCH_NUMBER_OPTION(T)                                                              \
  template CLI::Option* NumberOptions::Add(CLI::App&, const std::string&, std::function<void(T)>, \
                                           NumberRange<T>, const std::string&);                   \
  template CLI::Option* NumberOptions::Add(CLI::App&, const std::string&, T&, NumberRange<T>,     \
                                           const std::string&);
SPARSEBENCH_NUMBER_OPTION(int)
SPARSEBENCH_NUMBER_OPTION(uint32_t)
SPARSEBENCH_NUMBER_OPTION(uint64_t)
SPARSEBENCH_NUMBER_OPTION(double)
#undef SPARSEBENCH_NUMBER_OPTION

double ParsePercent(std::string text, const std::string& name, const NumberRange<double>& range) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  return ParseNumber(text, name, range) / 100;
}

}  // namespace sparsebench::cli
