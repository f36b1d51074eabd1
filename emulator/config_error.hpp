#pragma once
#include <stdexcept>

namespace ncp2::emu {

// A configuration problem: bad file, unknown key, wrong type or impossible value. The message
// names the file (or "--set") and the key.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ncp2::emu
