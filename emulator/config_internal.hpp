#pragma once
// INTERNAL to the configuration (emulator/config*.cpp): the CP commands' default costs, which
// both the key table and the defaults read.
#include <array>
#include <cstdint>
#include <string_view>

namespace ncp2::emu::config_detail {

// The CP commands of the NCP2 flows (SPEC §2). The DSM layer looks costs up by these names.
struct CommandDefault {
  std::string_view name;
  std::int64_t ns;
  std::string_view what;
};
extern const std::array<CommandDefault, 11> kCommandDefaults;

}  // namespace ncp2::emu::config_detail
