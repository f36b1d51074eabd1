#include "emulator/config_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "emulator/edit_distance.hpp"
#include "emulator/units.hpp"

namespace ncp2::emu::config {

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::Integer:
      return "integer";
    case Kind::Real:
      return "number";
    case Kind::DurationKind:
      return "duration";
    case Kind::Bandwidth:
      return "bandwidth";
    case Kind::Choice:
      return "choice";
  }
  return "?";
}

std::string quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

std::string show_real(double x) {
  std::string s = fmt::format("{:.10g}", x);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string type_text(const KeySpec& key) {
  if (key.kind != Kind::Choice) return std::string(kind_name(key.kind));
  std::string type = "one of";
  for (std::size_t i = 0; i < key.choices.size(); ++i) type += (i == 0 ? " " : ", ") + key.choices[i];
  return type;
}

Range default_range(Kind kind) {
  switch (kind) {
    case Kind::Integer:
      return {0, static_cast<double>(std::numeric_limits<int>::max())};
    case Kind::Real:
      return {0, 1e9};
    case Kind::DurationKind:
      return {0, 1};
    case Kind::Bandwidth:
      return {1e3, 1e15};
    case Kind::Choice:
      break;
  }
  return {};
}

namespace {

// A value of the key's kind in its printed form (durations in seconds, bandwidths in B/s).
std::string show_in_unit(Kind kind, double x) {
  switch (kind) {
    case Kind::DurationKind:
      return format_duration(Duration{static_cast<std::int64_t>(std::llround(x * 1e12))});
    case Kind::Bandwidth:
      return format_bandwidth(x);
    default:
      return fmt::format("{:.10g}", x);
  }
}

}  // namespace

std::string range_text(const KeySpec& key) {
  if (key.kind == Kind::Choice) return {};
  const Range r = key.range.value_or(default_range(key.kind));
  return fmt::format("{} .. {}", show_in_unit(key.kind, r.min), show_in_unit(key.kind, r.max));
}

namespace {

// Refuses a value outside the key's range (and a real that is not a finite number).
const Value& checked(const KeySpec& key, const Value& v) {
  double x = 0;
  std::string shown;
  switch (key.kind) {
    case Kind::Integer:
      x = static_cast<double>(v.integer);
      shown = std::to_string(v.integer);
      break;
    case Kind::Real:
      if (!std::isfinite(v.real)) throw ConfigError(fmt::format("{} is not a finite number", v.real));
      x = v.real;
      shown = fmt::format("{:.10g}", v.real);
      break;
    case Kind::DurationKind:
      x = static_cast<double>(parse_duration(v.text).count()) / 1e12;
      shown = v.text;
      break;
    case Kind::Bandwidth:
      x = parse_bandwidth(v.text);
      shown = v.text;
      break;
    case Kind::Choice:
      return v;
  }
  const Range r = key.range.value_or(default_range(key.kind));
  if (x < r.min || x > r.max)
    throw ConfigError(fmt::format("{} is out of range: allowed {}", shown, range_text(key)));
  return v;
}

std::string unknown_key_message(std::string_view key, KeySpecs keys) {
  const std::string hint = suggest_key(key, keys);
  if (hint.empty()) return fmt::format("unknown key '{}' (see `ncp2 config --keys`)", key);
  return fmt::format("unknown key '{}'; did you mean '{}'?", key, hint);
}

void check_choice(const KeySpec& key, const std::string& text) {
  if (std::find(key.choices.begin(), key.choices.end(), text) == key.choices.end()) {
    std::string list;
    for (const auto& c : key.choices) list += (list.empty() ? "" : ", ") + c;
    throw ConfigError(fmt::format("'{}' is not one of: {}", text, list));
  }
}

// Converts one TOML node to a Value for `key`, or throws ConfigError describing the mismatch.
Value value_from_toml(const KeySpec& key, const toml::node& node) {
  Value v;
  switch (key.kind) {
    case Kind::Integer:
      if (auto i = node.value_exact<std::int64_t>()) {
        if (*i < std::numeric_limits<int>::min() || *i > std::numeric_limits<int>::max())
          throw ConfigError(fmt::format("{} is out of range", *i));
        v.integer = *i;
        return v;
      }
      throw ConfigError("expected an integer");
    case Kind::Real:
      if (auto d = node.value<double>()) {
        v.real = *d;
        return v;
      }
      throw ConfigError("expected a number");
    case Kind::DurationKind:
      if (auto s = node.value_exact<std::string>()) {
        v.text = *s;
        parse_duration(v.text);
        return v;
      }
      if (auto i = node.value_exact<std::int64_t>(); i && *i == 0) {
        v.text = std::string(1, '0');  // not = "0": a false -Wrestrict of GCC 12 at -O3 (bug 105329)
        return v;
      }
      throw ConfigError("expected a duration string with a unit, e.g. \"4 us\"");
    case Kind::Bandwidth:
      if (auto s = node.value_exact<std::string>()) {
        v.text = *s;
        parse_bandwidth(v.text);
        return v;
      }
      throw ConfigError("expected a bandwidth string with a unit, e.g. \"160 MB/s\"");
    case Kind::Choice:
      if (auto s = node.value_exact<std::string>()) {
        v.text = *s;
        check_choice(key, v.text);
        return v;
      }
      throw ConfigError("expected a string");
  }
  throw ConfigError("unsupported value");
}

Value value_from_text(const KeySpec& key, std::string_view raw) {
  std::string text{trim(raw)};
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  Value v;
  switch (key.kind) {
    case Kind::Integer: {
      std::int64_t i = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
      if (ec != std::errc{} || p != text.data() + text.size())
        throw ConfigError(fmt::format("'{}' is not an integer", text));
      if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max())
        throw ConfigError(fmt::format("{} is out of range", text));
      v.integer = i;
      return v;
    }
    case Kind::Real: {
      double d = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
      if (ec != std::errc{} || p != text.data() + text.size())
        throw ConfigError(fmt::format("'{}' is not a number", text));
      v.real = d;
      return v;
    }
    case Kind::DurationKind:
      v.text = text;
      parse_duration(text);
      return v;
    case Kind::Bandwidth:
      v.text = text;
      parse_bandwidth(text);
      return v;
    case Kind::Choice:
      v.text = text;
      check_choice(key, text);
      return v;
  }
  throw ConfigError("unsupported value");
}

const KeySpec* find_key(std::string_view name, KeySpecs keys) {
  for (const KeySpec* key : keys)
    if (key->name == name) return key;
  return nullptr;
}

std::string place(std::string_view origin, const toml::source_region& src) {
  return src.begin.line > 0 ? fmt::format("{}:{}:{}", origin, src.begin.line, src.begin.column)
                            : std::string(origin);
}

void read_table(const toml::table& table, const std::string& prefix, std::string_view origin, KeySpecs keys,
                std::vector<Assignment>& out) {
  for (const auto& [k, node] : table) {
    const std::string name = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    const std::string where = place(origin, k.source());
    if (const auto* sub = node.as_table()) {
      // A table is a section, unless it is a leaf key that wants a value.
      if (find_key(name, keys))
        throw ConfigError(fmt::format("{}: key '{}': expected a value, found a table", where, name));
      read_table(*sub, name, origin, keys, out);
      continue;
    }
    const KeySpec* key = find_key(name, keys);
    if (!key) throw ConfigError(fmt::format("{}: {}", where, unknown_key_message(name, keys)));
    try {
      out.push_back({key, checked(*key, value_from_toml(*key, node)), where});
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{}: key '{}' ({}): {}", where, name, kind_name(key->kind), e.what()));
    }
  }
}

}  // namespace

std::string suggest_key(std::string_view unknown, KeySpecs keys) {
  const std::size_t limit = std::max<std::size_t>(3, unknown.size() / 3);
  // The distance is at least the difference of the lengths: a name that far off cannot be the
  // suggestion, so it is not compared (a long unknown name would cost length x key per key).
  const auto distance = [&](std::string_view name) {
    const std::size_t gap =
        unknown.size() > name.size() ? unknown.size() - name.size() : name.size() - unknown.size();
    return gap > limit ? limit + 1 : edit_distance(unknown, name);
  };
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const KeySpec* key : keys) {
    const std::string_view name = key->name;
    std::size_t d = distance(name);
    // A key given without its section ("link_bandwidth") is a near miss too.
    const auto dot = name.rfind('.');
    if (dot != std::string_view::npos) d = std::min(d, distance(name.substr(dot + 1)) + 1);
    if (d < best_d) {
      best_d = d;
      best = key->name;
    }
  }
  return best_d <= limit ? best : std::string{};
}

std::vector<Assignment> read_toml_text(std::string_view text, std::string_view origin, KeySpecs keys) {
  toml::table table;
  try {
    table = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    throw ConfigError(fmt::format("{}:{}:{}: TOML syntax error: {}", origin, src.begin.line, src.begin.column,
                                  e.description()));
  }
  std::vector<Assignment> out;
  read_table(table, "", origin, keys, out);
  return out;
}

std::vector<Assignment> read_toml_file(const std::string& path, KeySpecs keys) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    if (src.begin.line == 0)
      throw ConfigError(fmt::format("{}: cannot read configuration: {}", path, e.description()));
    throw ConfigError(fmt::format("{}:{}:{}: TOML syntax error: {}", path, src.begin.line, src.begin.column,
                                  e.description()));
  }
  std::vector<Assignment> out;
  read_table(table, "", path, keys, out);
  return out;
}

Assignment read_override(std::string_view assignment, KeySpecs keys) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos)
    throw ConfigError(fmt::format("--set '{}': expected key=value", assignment));
  const std::string name{trim(assignment.substr(0, eq))};
  const KeySpec* key = find_key(name, keys);
  if (!key) throw ConfigError(fmt::format("--set: {}", unknown_key_message(name, keys)));
  try {
    return {key, checked(*key, value_from_text(*key, assignment.substr(eq + 1))), "--set"};
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--set: key '{}' ({}): {}", name, kind_name(key->kind), e.what()));
  }
}

}  // namespace ncp2::emu::config
