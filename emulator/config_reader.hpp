#pragma once
// Reading configuration keys from TOML files, TOML text and `--set key=value` overrides, printing
// them back as TOML, suggesting a key for a misspelt one. The reading (config_reader.cpp) knows
// keys only by their KeySpec; KeyTable applies what was read to a configuration of its type.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/config_error.hpp"
#include "emulator/config_key.hpp"

namespace ncp2::emu::config {

// One key's value as read, and where it was read (for messages).
struct Assignment {
  const KeySpec* key = nullptr;
  Value value;
  std::string where;  // "file.toml:3:1", "--set"
};

using KeySpecs = std::span<const KeySpec* const>;

// Throw ConfigError naming the place, the key and what is wrong (unknown key: with a suggestion).
std::vector<Assignment> read_toml_text(std::string_view text, std::string_view origin, KeySpecs keys);
std::vector<Assignment> read_toml_file(const std::string& path, KeySpecs keys);
Assignment read_override(std::string_view assignment, KeySpecs keys);  // "key=value", no quotes needed

// The closest key to `unknown`, or "" when nothing is close.
std::string suggest_key(std::string_view unknown, KeySpecs keys);

// "integer", "one of a, b", ...: a key's type as `ncp2 config --keys` prints it.
std::string type_text(const KeySpec& key);

// A configuration type's keys, in the order `ncp2 config` prints them.
template <class Config>
class KeyTable {
 public:
  explicit KeyTable(std::vector<Key<Config>> keys) : keys_(std::move(keys)) {
    specs_.reserve(keys_.size());
    for (const auto& k : keys_) specs_.push_back(&k);
  }
  KeyTable(const KeyTable&) = delete;  // specs_ points into keys_
  KeyTable& operator=(const KeyTable&) = delete;

  [[nodiscard]] const std::vector<Key<Config>>& keys() const { return keys_; }

  void apply_toml_text(Config& c, std::string_view text, std::string_view origin) const {
    apply(c, read_toml_text(text, origin, specs_));
  }
  void apply_toml_file(Config& c, const std::string& path) const { apply(c, read_toml_file(path, specs_)); }
  void apply_override(Config& c, std::string_view assignment) const {
    apply(c, {read_override(assignment, specs_)});
  }
  [[nodiscard]] std::string suggest(std::string_view unknown) const { return suggest_key(unknown, specs_); }

  // The configuration as a TOML document that apply_toml_text() reads back unchanged.
  [[nodiscard]] std::string to_toml(const Config& c) const {
    std::string out;
    std::string section;
    for (const auto& key : keys_) {
      const std::string sec = key.name.substr(0, key.name.rfind('.'));
      if (sec != section) {
        out += fmt::format("{}[{}]\n", out.empty() ? "" : "\n", sec);
        section = sec;
      }
      out += fmt::format("{} = {}\n", key.name.substr(key.name.rfind('.') + 1), key.show(c));
    }
    return out;
  }

  [[nodiscard]] std::vector<ConfigKeyInfo> infos(const Config& defaults) const {
    std::vector<ConfigKeyInfo> out;
    out.reserve(keys_.size());
    for (const auto& key : keys_)
      out.push_back(
          {key.name, type_text(key), key.description, key.show(defaults), key.source, range_text(key)});
    return out;
  }

 private:
  void apply(Config& c, const std::vector<Assignment>& assignments) const {
    for (const auto& a : assignments) {
      // Every spec of this table is the base of one of its keys.
      const auto& key = static_cast<const Key<Config>&>(*a.key);
      try {
        key.set(c, a.value);
      } catch (const ConfigError& e) {
        throw ConfigError(
            fmt::format("{}: key '{}' ({}): {}", a.where, key.name, kind_name(key.kind), e.what()));
      }
    }
  }

  std::vector<Key<Config>> keys_;
  std::vector<const KeySpec*> specs_;
};

}  // namespace ncp2::emu::config
