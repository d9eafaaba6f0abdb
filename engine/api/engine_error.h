#pragma once

#include <stdexcept>
#include <string>

namespace sparsebench {

// A user's mistake in a spec string, option or model file (our own bugs are assertions).
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace sparsebench
