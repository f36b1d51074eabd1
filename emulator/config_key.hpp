#pragma once
// One configuration key: its name, type, meaning and source, and how it sets and shows its value
// on a configuration object. The emulator's keys act on emu::MachineConfig; the layers above add
// their own keys on their own configuration types (dsm::SystemConfig derives from MachineConfig,
// and lift() turns a machine key into one of its keys), so each type lives with what it configures.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "emulator/time.hpp"
#include "emulator/units.hpp"

namespace ncp2::emu::config {

// Where a default value comes from, as `ncp2 config --keys` prints it.
inline constexpr std::string_view kSpec = "SPEC §1 (NCP2 paper, seed 004)";
inline constexpr std::string_view kAssumed =
    "assumption: typical of mid-1990s hardware; the papers give no value";

enum class Kind { Integer, Real, DurationKind, Bandwidth, Choice };
std::string_view kind_name(Kind k);

struct Value {
  // Exactly one is meaningful, depending on the key's Kind.
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
};

// The values a numeric key accepts, in the key's own unit: the number itself (integer, real),
// seconds (duration), bytes per second (bandwidth). Checked when the key is read, so that a
// value that would overflow virtual time or exhaust the host is refused with its file and line.
struct Range {
  double min = 0;
  double max = 0;
};

// What the reader needs to know of a key (name, type, choices) and what `ncp2 config` prints.
struct KeySpec {
  std::string name;  // "section.key"
  Kind kind = Kind::Integer;
  std::string description;
  std::string source;
  std::vector<std::string> choices;  // for Kind::Choice
  std::optional<Range> range;        // numeric kinds; none: default_range(kind)
};

// Integers 0 .. 2^31-1, reals 0 .. 1e9, durations 0 .. 1 s, bandwidths 1 kB/s .. 1 PB/s.
Range default_range(Kind kind);
// "1 .. 4096", "0 s .. 1 s": the range as `ncp2 config --keys` and messages print it; "" for choices.
std::string range_text(const KeySpec& key);

template <class Config>
struct Key : KeySpec {
  std::function<void(Config&, const Value&)> set;
  std::function<std::string(const Config&)> show;  // TOML value text
};

// A key as printed by `ncp2 config --keys`.
struct ConfigKeyInfo {
  std::string key;   // "network.link_bandwidth"
  std::string type;  // "duration", "bandwidth", "integer", ...
  std::string description;
  std::string ncp2_default;  // as printed by to_toml()
  std::string source;        // where the default comes from
  std::string range;         // range_text()
};

std::string quoted(std::string_view s);
std::string show_real(double x);  // always with a decimal point, so that TOML reads a float back

// Key builders. `field` returns a reference to the value inside a configuration.
template <class Config, class Field>
Key<Config> integer_key(std::string name, Field field, std::string description, std::string_view source,
                        std::optional<Range> range = std::nullopt) {
  return {{std::move(name), Kind::Integer, std::move(description), std::string(source), {}, range},
          [field](Config& c, const Value& v) { field(c) = static_cast<int>(v.integer); },
          [field](const Config& c) { return fmt::format("{}", field(const_cast<Config&>(c))); }};
}
template <class Config, class Field>
Key<Config> real_key(std::string name, Field field, std::string description, std::string_view source,
                     std::optional<Range> range = std::nullopt) {
  return {{std::move(name), Kind::Real, std::move(description), std::string(source), {}, range},
          [field](Config& c, const Value& v) { field(c) = v.real; },
          [field](const Config& c) { return show_real(field(const_cast<Config&>(c))); }};
}
template <class Config, class Field>
Key<Config> duration_key(std::string name, Field field, std::string description, std::string_view source,
                         std::optional<Range> range = std::nullopt) {
  return {{std::move(name), Kind::DurationKind, std::move(description), std::string(source), {}, range},
          [field](Config& c, const Value& v) { field(c) = parse_duration(v.text); },
          [field](const Config& c) { return quoted(format_duration(field(const_cast<Config&>(c)))); }};
}
template <class Config, class Field>
Key<Config> bandwidth_key(std::string name, Field field, std::string description, std::string_view source,
                          std::optional<Range> range = std::nullopt) {
  return {{std::move(name), Kind::Bandwidth, std::move(description), std::string(source), {}, range},
          [field](Config& c, const Value& v) { field(c) = parse_bandwidth(v.text); },
          [field](const Config& c) { return quoted(format_bandwidth(field(const_cast<Config&>(c)))); }};
}

// A table of keys under construction: `keys.integer("memory.page_size", field, "...", source);`.
template <class Config>
struct KeyList {
  std::vector<Key<Config>> keys;
  template <class Field>
  void integer(std::string name, Field field, std::string description, std::string_view source,
               std::optional<Range> range = std::nullopt) {
    keys.push_back(integer_key<Config>(std::move(name), field, std::move(description), source, range));
  }
  template <class Field>
  void real(std::string name, Field field, std::string description, std::string_view source,
            std::optional<Range> range = std::nullopt) {
    keys.push_back(real_key<Config>(std::move(name), field, std::move(description), source, range));
  }
  template <class Field>
  void duration(std::string name, Field field, std::string description, std::string_view source,
                std::optional<Range> range = std::nullopt) {
    keys.push_back(duration_key<Config>(std::move(name), field, std::move(description), source, range));
  }
  template <class Field>
  void bandwidth(std::string name, Field field, std::string description, std::string_view source,
                 std::optional<Range> range = std::nullopt) {
    keys.push_back(bandwidth_key<Config>(std::move(name), field, std::move(description), source, range));
  }
};

// A key of a base configuration as a key of a configuration derived from it.
template <class Derived, class Base>
Key<Derived> lift(const Key<Base>& key) {
  return {static_cast<const KeySpec&>(key), [set = key.set](Derived& c, const Value& v) { set(c, v); },
          [show = key.show](const Derived& c) { return show(c); }};
}

}  // namespace ncp2::emu::config
