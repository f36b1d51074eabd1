// The system's configuration: the protocol's keys, defaults and checks on top of the machine's.
#include "dsm/config.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "emulator/config_reader.hpp"

namespace ncp2::dsm {

namespace {

using namespace emu::config;  // NOLINT(google-build-using-namespace): the key builders
using C = SystemConfig;

// NOLINTNEXTLINE(readability-function-size): a data table, one entry per configuration key.
std::vector<Key<C>> protocol_keys() {
  KeyList<C> k;

  k.duration(
      "dsm.fault_trap", [](C& c) -> emu::Duration& { return c.dsm.fault_trap; },
      "PP takes an access fault on a shared page and enters the DSM handler", kAssumed);
  k.duration(
      "dsm.protocol_handler", [](C& c) -> emu::Duration& { return c.dsm.protocol_handler; },
      "PP runs the bookkeeping of one protocol operation (lock, barrier, request)", kAssumed);
  k.duration(
      "dsm.fault_handoff", [](C& c) -> emu::Duration& { return c.dsm.fault_handoff; },
      "an access fault's hand-off to the node's protocol server, beyond dsm.fault_trap (a real node's "
      "program "
      "posts the fault to its agent as it posts a Tmk call: docs/validation.md)",
      "0: the fault handler runs in the faulting program (TreadMarks); ncp2 calibrate --machine real sets it "
      "to dsm.protocol_handler");
  k.duration(
      "dsm.per_write_notice", [](C& c) -> emu::Duration& { return c.dsm.per_write_notice; },
      "creating or applying one write notice (invalidation)", kAssumed);
  k.duration(
      "dsm.close_per_page", [](C& c) -> emu::Duration& { return c.dsm.close_per_page; },
      "the node's own work per page an interval wrote, when the interval closes (a real node's agent makes "
      "each page's twin and diff there: docs/validation.md)",
      "0: none (TreadMarks makes diffs lazily); ncp2 calibrate --machine real measures it "
      "(barrier-after-8-pages, barrier-after-520-pages)");
  k.duration(
      "dsm.diff_scan_per_word", [](C& c) -> emu::Duration& { return c.dsm.diff_scan_per_word; },
      "software diff creation on the PP, per word of the page compared with its twin (treadmarks)", kAssumed);
  k.duration(
      "dsm.diff_apply_per_word", [](C& c) -> emu::Duration& { return c.dsm.diff_apply_per_word; },
      "software diff application on the PP, per word written (treadmarks)", kAssumed);
  k.duration(
      "dsm.diff_encode_per_word", [](C& c) -> emu::Duration& { return c.dsm.diff_encode_per_word; },
      "software diff creation on the PP, per changed word copied into the diff, beyond the scan (treadmarks)",
      "0: none; calibrated by the 1994 presets (configs/decstation-*-1994.toml)");
  k.duration(
      "dsm.diff_per_run", [](C& c) -> emu::Duration& { return c.dsm.diff_per_run; },
      "software diff creation on the PP, per run of changed words (its header) (treadmarks)",
      "0: none; calibrated by the 1994 presets (configs/decstation-*-1994.toml)");
  k.integer(
      "dsm.lazy_diffs", [](C& c) -> int& { return c.dsm.lazy_diffs; },
      "1: virtual time follows TreadMarks' lazy diff creation (one twin kept across intervals; a diff made "
      "and "
      "charged only when requested or when a write notice invalidates the page); 0: a diff per interval at "
      "the next write (treadmarks)",
      "0: the model before issue 20; 1 in the 1994 presets (TreadMarks' lazy diff creation)", Range{0, 1});
  k.integer(
      "dsm.gc_threshold_kb", [](C& c) -> int& { return c.dsm.gc_threshold_kb; },
      "diffs (each counted when its interval closes) + write notices held by a node that make the next "
      "barrier "
      "collect garbage",
      "TreadMarks practice", Range{1, 1 << 24});
  k.integer(
      "dsm.barrier_manager", [](C& c) -> int& { return c.dsm.barrier_manager; }, "node that manages barriers",
      "TreadMarks: process 0", Range{0, 4095});
  k.keys.push_back({{"dsm.first_touch",
                     Kind::Choice,
                     "where a node gets a page it never held: home (the allocating node, node 0, holds every "
                     "page at first; the others fetch its copy) or zero (every node starts with a valid zero "
                     "copy, no page requests); emulated and real runs alike",
                     "TreadMarks: home (Costa et al., OSDI'96, §3.2; docs/protocol.md)",
                     {"home", "zero"},
                     std::nullopt},
                    [](C& c, const Value& v) { c.dsm.first_touch = *lrc::first_touch_named(v.text); },
                    [](const C& c) { return quoted(lrc::to_string(c.dsm.first_touch)); }});
  k.keys.push_back(
      {{"dsm.gc_copies",
        Kind::Choice,
        "what a garbage collection does with stale copies: last-writer (each page's last writer "
        "becomes its home and brings its copy up to date; other stale copies are dropped) or "
        "validate-all (every node brings every stale copy it holds up to date); emulated and real "
        "runs alike",
        "TreadMarks: a copy is discarded or all its diffs requested (Costa et al., OSDI'96, §3.2); "
        "which one: our rule (docs/protocol.md)",
        {"last-writer", "validate-all"},
        std::nullopt},
       [](C& c, const Value& v) { c.dsm.gc_copies = *lrc::gc_copies_named(v.text); },
       [](const C& c) { return quoted(lrc::to_string(c.dsm.gc_copies)); }});

  k.real(
      "cost.flop", [](C& c) -> double& { return c.cost.flop; },
      "PP cycles per floating-point operation in workload code (add, multiply, compare)", kAssumed,
      Range{0, 1e6});
  k.real(
      "cost.int_op", [](C& c) -> double& { return c.cost.int_op; },
      "PP cycles per integer operation in workload code", kAssumed, Range{0, 1e6});
  k.real(
      "cost.load", [](C& c) -> double& { return c.cost.load; },
      "PP cycles per load in workload code (cache hits and misses averaged)", kAssumed, Range{0, 1e6});
  k.real(
      "cost.store", [](C& c) -> double& { return c.cost.store; }, "PP cycles per store in workload code",
      kAssumed, Range{0, 1e6});
  k.real(
      "cost.branch", [](C& c) -> double& { return c.cost.branch; },
      "PP cycles per branch or loop iteration in workload code", kAssumed, Range{0, 1e6});
  k.real(
      "cost.instruction", [](C& c) -> double& { return c.cost.instruction; },
      "PP cycles per instruction of a program built with ncp2-cc (counted by its instrumentation)", kAssumed,
      Range{0, 1e6});
  k.integer(
      "tmk.heap_mb", [](C& c) -> int& { return c.tmk.heap_mb; },
      "shared memory for Tmk_malloc of a program run with ncp2 run ./prog, in MiB per node",
      "host resource, not a model value", Range{1, 1 << 20});
  k.integer(
      "tmk.sample_instructions", [](C& c) -> int& { return c.tmk.sample_instructions; },
      "counted instructions between two samples of a program's position (its computation by line; 0: none)",
      "profiler resolution, not a model value", Range{0, 1e9});

  return std::move(k.keys);
}

// The machine's keys, the protocol's inserted before the emulator's own settings: the order in
// which `ncp2 config` has always printed them, and in which runs store their configuration.
const KeyTable<C>& keys() {
  static const KeyTable<C> table = [] {
    std::vector<Key<C>> all;
    std::vector<Key<C>> emulator_section;
    for (const auto& key : emu::machine_keys())
      (key.name.starts_with("emulator.") ? emulator_section : all).push_back(lift<C>(key));
    for (auto& key : protocol_keys()) all.push_back(std::move(key));
    for (auto& key : emulator_section) all.push_back(std::move(key));
    return KeyTable<C>(std::move(all));
  }();
  return table;
}

}  // namespace

lrc::ProtocolConfig protocol_config(const SystemConfig& config) {
  lrc::ProtocolConfig p;
  p.nodes = config.machine.nodes;
  p.page_size = static_cast<std::size_t>(config.memory.page_size);
  p.word_size = config.memory.word_size;
  p.gc_threshold_bytes = static_cast<std::size_t>(config.dsm.gc_threshold_kb) * 1024;
  p.barrier_manager = emu::node_id(config.dsm.barrier_manager);
  p.first_touch = config.dsm.first_touch;
  p.gc_copies = config.dsm.gc_copies;
  return p;
}

SystemConfig default_config(emu::MachineKind kind) {
  using namespace emu::literals;
  SystemConfig c;
  static_cast<emu::MachineConfig&>(c) = emu::default_machine_config(kind);
  c.dsm.fault_trap = 3_us;
  c.dsm.protocol_handler = 2_us;
  c.dsm.per_write_notice = 100_ns;
  c.dsm.diff_scan_per_word = 20_ns;  // ~2 cycles per word at 100 MHz
  c.dsm.diff_apply_per_word = 20_ns;
  c.dsm.gc_threshold_kb = 1024;
  c.dsm.barrier_manager = 0;
  c.cost = CostConfig{};
  return c;
}

void apply_toml_file(SystemConfig& config, const std::string& path) { keys().apply_toml_file(config, path); }

void apply_toml_text(SystemConfig& config, std::string_view text, std::string_view origin) {
  keys().apply_toml_text(config, text, origin);
}

void apply_override(SystemConfig& config, std::string_view assignment) {
  keys().apply_override(config, assignment);
}

void validate(const SystemConfig& c) {
  emu::validate(c);
  auto fail = [](std::string_view key, const std::string& why) {
    throw emu::ConfigError(fmt::format("key '{}': {}", key, why));
  };
  auto non_negative = [&](std::string_view key, emu::Duration d) {
    if (d.count() < 0) fail(key, "duration must not be negative");
  };
  non_negative("dsm.fault_trap", c.dsm.fault_trap);
  non_negative("dsm.protocol_handler", c.dsm.protocol_handler);
  non_negative("dsm.fault_handoff", c.dsm.fault_handoff);
  non_negative("dsm.per_write_notice", c.dsm.per_write_notice);
  non_negative("dsm.close_per_page", c.dsm.close_per_page);
  non_negative("dsm.diff_scan_per_word", c.dsm.diff_scan_per_word);
  non_negative("dsm.diff_apply_per_word", c.dsm.diff_apply_per_word);
  non_negative("dsm.diff_encode_per_word", c.dsm.diff_encode_per_word);
  non_negative("dsm.diff_per_run", c.dsm.diff_per_run);
  if (c.dsm.gc_threshold_kb < 1) fail("dsm.gc_threshold_kb", "must be at least 1");
  if (c.tmk.heap_mb < 1 || c.tmk.heap_mb > 1 << 20)
    fail("tmk.heap_mb", fmt::format("must be between 1 and {} MiB, got {}", 1 << 20, c.tmk.heap_mb));
  if (c.tmk.sample_instructions < 0)
    fail("tmk.sample_instructions",
         fmt::format("must be 0 (none) or more, got {}", c.tmk.sample_instructions));
  if (c.dsm.barrier_manager < 0 || c.dsm.barrier_manager >= c.machine.nodes)
    fail("dsm.barrier_manager", fmt::format("must be a node of the cluster (0..{}), got {}",
                                            c.machine.nodes - 1, c.dsm.barrier_manager));
  for (const auto& [key, value] :
       {std::pair{"cost.flop", c.cost.flop}, std::pair{"cost.int_op", c.cost.int_op},
        std::pair{"cost.load", c.cost.load}, std::pair{"cost.store", c.cost.store},
        std::pair{"cost.branch", c.cost.branch}, std::pair{"cost.instruction", c.cost.instruction}})
    if (!(value >= 0) || value > 1e6)
      fail(key, fmt::format("must be between 0 and 1e6 cycles, got {}", value));
}

std::string to_toml(const SystemConfig& config) { return keys().to_toml(config); }

std::vector<ConfigKeyInfo> config_keys() { return keys().infos(dsm::default_config(emu::MachineKind::Ncp2)); }

std::string suggest_key(std::string_view unknown) { return keys().suggest(unknown); }

}  // namespace ncp2::dsm
