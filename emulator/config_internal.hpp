#pragma once
// INTERNAL to the configuration (emulator/config*.cpp): the registry of keys, each with its type,
// meaning, source, and how to set and show it on a MachineConfig.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/config.hpp"

namespace ncp2::emu::config_detail {

enum class Kind { Integer, Real, DurationKind, Bandwidth, Choice };

struct Value {
  // Exactly one is meaningful, depending on the key's Kind.
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
};

struct Key {
  std::string name;
  Kind kind;
  std::string description;
  std::string source;
  std::vector<std::string> choices;  // for Kind::Choice
  std::function<void(MachineConfig&, const Value&)> set;
  std::function<std::string(const MachineConfig&)> show;  // TOML value text
};

std::string_view kind_name(Kind k);

// The CP commands of the NCP2 flows (SPEC §2). The DSM layer looks costs up by these names.
struct CommandDefault {
  std::string_view name;
  std::int64_t ns;
  std::string_view what;
};
extern const std::array<CommandDefault, 11> kCommandDefaults;

// Every key, in the order `ncp2 config` prints them (config_keys.cpp).
const std::vector<Key>& registry();

}  // namespace ncp2::emu::config_detail
