#include "emulator/config.hpp"
#include "emulator/config_internal.hpp"

#include "emulator/edit_distance.hpp"
#include "emulator/units.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace ncp2::emu {

using namespace std::string_view_literals;

std::string_view to_string(MachineKind k) { return k == MachineKind::Ncp2 ? "ncp2" : "treadmarks"; }

std::string_view to_string(Topology t) {
  switch (t) {
    case Topology::Auto:
      return "auto";
    case Topology::Star:
      return "star";
    case Topology::Tree:
      return "tree";
    case Topology::Chain:
      return "chain";
  }
  return "auto";
}

Duration CpConfig::cost_of(std::string_view command) const {
  auto it = command_cost.find(command);
  if (it == command_cost.end())
    throw ConfigError(
        fmt::format("no cost configured for CP command '{}' (key cp.command_cost.{})", command, command));
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// The key registry

namespace {

using namespace config_detail;  // NOLINT(google-build-using-namespace): the registry's own parts

const Key* find_key(std::string_view name) {
  for (const auto& key : registry())
    if (key.name == name) return &key;
  return nullptr;
}

std::string unknown_key_message(std::string_view key) {
  const std::string hint = suggest_key(key);
  if (hint.empty()) return fmt::format("unknown key '{}' (see `ncp2 config --keys`)", key);
  return fmt::format("unknown key '{}'; did you mean '{}'?", key, hint);
}

void check_choice(const Key& key, const std::string& text) {
  if (std::find(key.choices.begin(), key.choices.end(), text) == key.choices.end()) {
    std::string list;
    for (const auto& c : key.choices) list += (list.empty() ? "" : ", ") + c;
    throw ConfigError(fmt::format("'{}' is not one of: {}", text, list));
  }
}

// Converts one TOML node to a Value for `key`, or throws ConfigError describing the mismatch.
Value value_from_toml(const Key& key, const toml::node& node) {
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
        v.text = "0";
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

Value value_from_text(const Key& key, std::string_view raw) {
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

void apply_table(MachineConfig& config, const toml::table& table, const std::string& prefix,
                 std::string_view origin) {
  for (const auto& [k, node] : table) {
    const std::string name = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    const auto& src = k.source();
    const std::string where = src.begin.line > 0
                                  ? fmt::format("{}:{}:{}", origin, src.begin.line, src.begin.column)
                                  : std::string(origin);
    if (const auto* sub = node.as_table()) {
      // A table is a section, unless it is a leaf key that wants a value.
      if (find_key(name))
        throw ConfigError(fmt::format("{}: key '{}': expected a value, found a table", where, name));
      apply_table(config, *sub, name, origin);
      continue;
    }
    const Key* key = find_key(name);
    if (!key) throw ConfigError(fmt::format("{}: {}", where, unknown_key_message(name)));
    try {
      key->set(config, value_from_toml(*key, node));
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{}: key '{}' ({}): {}", where, name, kind_name(key->kind), e.what()));
    }
  }
}

}  // namespace

std::string suggest_key(std::string_view unknown) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& key : registry()) {
    std::size_t d = edit_distance(unknown, key.name);
    // A key given without its section ("link_bandwidth") is a near miss too.
    const auto dot = key.name.rfind('.');
    if (dot != std::string::npos) d = std::min(d, edit_distance(unknown, key.name.substr(dot + 1)) + 1);
    if (d < best_d) {
      best_d = d;
      best = key.name;
    }
  }
  const std::size_t limit = std::max<std::size_t>(3, unknown.size() / 3);
  return best_d <= limit ? best : std::string{};
}

MachineConfig default_config(MachineKind kind) {
  using namespace literals;
  MachineConfig c;
  c.machine.kind = kind;
  c.machine.nodes = 8;

  c.pp.clock_mhz = 100.0;
  c.pp.interrupt_overhead = 4_us;  // ~400 cycles of a 100 MHz PowerPC 604 under a Unix kernel
  c.pp.command_post = 200_ns;
  c.pp.notification_handler = 1_us;
  c.pp.send_overhead = 15_us;
  c.pp.receive_overhead = 15_us;
  c.pp.copy_bandwidth = 100e6;

  c.cp.clock_mhz = 100.0;
  c.cp.dma_bandwidth = 132e6;  // a 32-bit, 33 MHz PCI-class I/O bus
  for (const auto& cmd : kCommandDefaults) c.cp.command_cost[std::string(cmd.name)] = nanoseconds(cmd.ns);

  c.memory.bus_bandwidth = 533e6;  // 64-bit 60X bus at 66 MHz
  c.memory.dram_mb = 32;
  c.memory.l2_kb = 256;
  c.memory.page_size = 4096;
  c.memory.word_size = 4;

  c.network.link_bandwidth = 1.28e9 / 8;  // 1.28 Gbit/s = 160 MB/s
  c.network.link_latency = 100_ns;
  c.network.switch_delay = 500_ns;
  c.network.switch_ports = 8;
  c.network.topology = Topology::Auto;
  c.network.header_bytes = 16;

  c.dsm.fault_trap = 3_us;
  c.dsm.protocol_handler = 2_us;
  c.dsm.per_write_notice = 100_ns;
  c.dsm.diff_scan_per_word = 20_ns;  // ~2 cycles per word at 100 MHz
  c.dsm.diff_apply_per_word = 20_ns;
  c.dsm.gc_threshold_kb = 1024;
  c.dsm.barrier_manager = 0;

  c.cost = CostConfig{};

  c.emulator.fiber_stack_kb = 256;
  return c;
}

void apply_toml_text(MachineConfig& config, std::string_view text, std::string_view origin) {
  toml::table table;
  try {
    table = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    throw ConfigError(fmt::format("{}:{}:{}: TOML syntax error: {}", origin, src.begin.line, src.begin.column,
                                  e.description()));
  }
  apply_table(config, table, "", origin);
}

void apply_toml_file(MachineConfig& config, const std::string& path) {
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
  apply_table(config, table, "", path);
}

void apply_override(MachineConfig& config, std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos)
    throw ConfigError(fmt::format("--set '{}': expected key=value", assignment));
  const std::string name{trim(assignment.substr(0, eq))};
  const Key* key = find_key(name);
  if (!key) throw ConfigError(fmt::format("--set: {}", unknown_key_message(name)));
  try {
    key->set(config, value_from_text(*key, assignment.substr(eq + 1)));
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--set: key '{}' ({}): {}", name, kind_name(key->kind), e.what()));
  }
}

void validate(const MachineConfig& c) {
  auto fail = [](std::string_view key, const std::string& why) {
    throw ConfigError(fmt::format("key '{}': {}", key, why));
  };
  auto positive_bw = [&](std::string_view key, double v) {
    if (!(v > 0) || !std::isfinite(v)) fail(key, fmt::format("bandwidth must be positive, got {}", v));
  };
  auto non_negative = [&](std::string_view key, Duration d) {
    if (d.count() < 0) fail(key, "duration must not be negative");
  };
  if (c.machine.nodes < 1)
    fail("machine.nodes", fmt::format("at least 1 node is needed, got {}", c.machine.nodes));
  if (c.machine.nodes > 4096)
    fail("machine.nodes", fmt::format("at most 4096 nodes are supported, got {}", c.machine.nodes));
  if (!(c.pp.clock_mhz > 0)) fail("pp.clock_mhz", "clock must be positive");
  if (!(c.cp.clock_mhz > 0)) fail("cp.clock_mhz", "clock must be positive");
  non_negative("pp.interrupt_overhead", c.pp.interrupt_overhead);
  non_negative("pp.command_post", c.pp.command_post);
  non_negative("pp.notification_handler", c.pp.notification_handler);
  non_negative("pp.send_overhead", c.pp.send_overhead);
  non_negative("pp.receive_overhead", c.pp.receive_overhead);
  positive_bw("pp.copy_bandwidth", c.pp.copy_bandwidth);
  positive_bw("cp.dma_bandwidth", c.cp.dma_bandwidth);
  for (const auto& [name, cost] : c.cp.command_cost) non_negative("cp.command_cost." + name, cost);
  positive_bw("memory.bus_bandwidth", c.memory.bus_bandwidth);
  if (c.memory.word_size <= 0 || (c.memory.word_size & (c.memory.word_size - 1)) != 0)
    fail("memory.word_size", fmt::format("must be a positive power of two, got {}", c.memory.word_size));
  if (c.memory.page_size < c.memory.word_size || c.memory.page_size % c.memory.word_size != 0 ||
      (c.memory.page_size & (c.memory.page_size - 1)) != 0)
    fail("memory.page_size",
         fmt::format("must be a power of two and a multiple of the word size, got {}", c.memory.page_size));
  if (c.memory.dram_mb <= 0) fail("memory.dram_mb", "must be positive");
  if (c.memory.l2_kb < 0) fail("memory.l2_kb", "must not be negative");
  positive_bw("network.link_bandwidth", c.network.link_bandwidth);
  non_negative("network.link_latency", c.network.link_latency);
  non_negative("network.switch_delay", c.network.switch_delay);
  if (c.network.header_bytes < 0) fail("network.header_bytes", "must not be negative");
  const int ports = c.network.switch_ports;
  if (ports < 2) fail("network.switch_ports", fmt::format("a switch needs at least 2 ports, got {}", ports));
  const int n = c.machine.nodes;
  switch (c.network.topology) {
    case Topology::Star:
      if (n > ports)
        fail("network.topology", fmt::format("a star has one switch of {} ports and cannot connect {} "
                                             "nodes; use \"tree\", \"chain\" or \"auto\"",
                                             ports, n));
      break;
    case Topology::Tree:
    case Topology::Auto:
      if (n > ports && ports < 3)
        fail("network.topology",
             fmt::format("cascading switches needs at least 3 ports per switch, got {}", ports));
      break;
    case Topology::Chain:
      if (n > ports && ports < 3)
        fail("network.topology",
             fmt::format("a chain of switches needs at least 3 ports per switch, got {}", ports));
      break;
  }
  non_negative("dsm.fault_trap", c.dsm.fault_trap);
  non_negative("dsm.protocol_handler", c.dsm.protocol_handler);
  non_negative("dsm.per_write_notice", c.dsm.per_write_notice);
  non_negative("dsm.diff_scan_per_word", c.dsm.diff_scan_per_word);
  non_negative("dsm.diff_apply_per_word", c.dsm.diff_apply_per_word);
  if (c.dsm.gc_threshold_kb < 1) fail("dsm.gc_threshold_kb", "must be at least 1");
  if (c.dsm.barrier_manager < 0 || c.dsm.barrier_manager >= c.machine.nodes)
    fail("dsm.barrier_manager", fmt::format("must be a node of the cluster (0..{}), got {}",
                                            c.machine.nodes - 1, c.dsm.barrier_manager));
  for (const auto& [key, value] :
       {std::pair{"cost.flop", c.cost.flop}, std::pair{"cost.int_op", c.cost.int_op},
        std::pair{"cost.load", c.cost.load}, std::pair{"cost.store", c.cost.store},
        std::pair{"cost.branch", c.cost.branch}})
    if (!(value >= 0) || value > 1e6)
      fail(key, fmt::format("must be between 0 and 1e6 cycles, got {}", value));
  if (c.emulator.fiber_stack_kb < 16)
    fail("emulator.fiber_stack_kb",
         fmt::format("at least 16 KiB are needed, got {}", c.emulator.fiber_stack_kb));
}

std::string to_toml(const MachineConfig& config) {
  std::string out;
  std::string section;
  for (const auto& key : registry()) {
    const std::string sec = key.name.substr(0, key.name.rfind('.'));
    if (sec != section) {
      out += fmt::format("{}[{}]\n", out.empty() ? "" : "\n", sec);
      section = sec;
    }
    out += fmt::format("{} = {}\n", key.name.substr(key.name.rfind('.') + 1), key.show(config));
  }
  return out;
}

std::vector<ConfigKeyInfo> config_keys() {
  const MachineConfig defaults = default_config(MachineKind::Ncp2);
  std::vector<ConfigKeyInfo> out;
  for (const auto& key : registry()) {
    std::string type{kind_name(key.kind)};
    if (key.kind == Kind::Choice) {
      type = "one of";
      for (std::size_t i = 0; i < key.choices.size(); ++i) type += (i == 0 ? " " : ", ") + key.choices[i];
    }
    out.push_back({key.name, type, key.description, key.show(defaults), key.source});
  }
  return out;
}

}  // namespace ncp2::emu