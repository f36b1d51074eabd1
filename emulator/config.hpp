#pragma once
// Every timing parameter of the emulated machine, with NCP2 defaults (SPEC §1).
// One registry of keys (config.cpp) drives TOML parsing, `--set` overrides, validation with
// "did you mean", printing the effective configuration, and the key list in the docs.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/config_error.hpp"
#include "emulator/time.hpp"
#include "emulator/units.hpp"

namespace ncp2::emu {

enum class MachineKind { Ncp2, TreadMarks };
std::string_view to_string(MachineKind k);

struct MachineSection {
  MachineKind kind = MachineKind::Ncp2;
  int nodes = 8;
};

struct PpConfig {
  double clock_mhz = 100.0;
  Duration interrupt_overhead{};    // entering + leaving an interrupt handler
  Duration command_post{};          // PP writes a command into its CP's queue (ncp2)
  Duration notification_handler{};  // PP handles a CP notification (ncp2)
  Duration send_overhead{};         // software send path, per message (treadmarks)
  Duration receive_overhead{};      // software receive path, per message (treadmarks)
  double copy_bandwidth = 0;        // bytes/s of a memcpy by the PP
};

struct CpConfig {
  double clock_mhz = 0;
  double dma_bandwidth = 0;  // bytes/s
  // Execution cost of each command kind, by command name (send_message, page_reply, ...).
  std::map<std::string, Duration, std::less<>> command_cost;
  [[nodiscard]] Duration cost_of(std::string_view command) const;
};

struct MemoryConfig {
  double bus_bandwidth = 0;  // bytes/s, shared by the PP and the CP's DMA engine
  int dram_mb = 32;
  int l2_kb = 256;
  int page_size = 4096;
  int word_size = 4;
};

enum class Topology { Auto, Star, Tree, Chain };
std::string_view to_string(Topology t);

struct NetworkConfig {
  double link_bandwidth = 0;  // bytes/s of every cable
  Duration link_latency{};    // propagation through one cable (node-switch or switch-switch)
  Duration switch_delay{};    // routing decision inside a switch, per switch crossed
  int switch_ports = 8;
  Topology topology = Topology::Auto;
  int header_bytes = 0;  // added to each message's payload on the wire
};

// Costs of the TreadMarks protocol code itself (interpreted by dsm/, not by the emulator).
struct DsmConfig {
  Duration fault_trap{};           // PP takes an access fault and enters the DSM handler
  Duration protocol_handler{};     // one protocol handler's bookkeeping (lock, barrier, request)
  Duration per_write_notice{};     // creating or applying one write notice
  Duration diff_scan_per_word{};   // software diff creation, per word of the page (treadmarks)
  Duration diff_apply_per_word{};  // software diff application, per word written (treadmarks)
  int gc_threshold_kb = 1024;      // diffs + write notices per node that trigger a GC at a barrier
  int barrier_manager = 0;         // node that manages barriers
};

// PP cycles per operation of workload code: the deterministic time model charges a workload's
// computation from its operation counts (dsm::OpCounts) with these averages, which include the
// cache behaviour of typical loops on a 100 MHz PowerPC 604 with a 256 KB L2.
struct CostConfig {
  double flop = 2.0;    // floating-point add, multiply, compare (divide: count several)
  double int_op = 1.0;  // integer arithmetic, logic, address computation
  double load = 1.5;    // load from memory (L1 hits mostly, some L2)
  double store = 1.5;   // store to memory
  double branch = 1.0;  // conditional branch, loop iteration or call (mispredictions averaged in)
};

struct EmulatorSection {
  int fiber_stack_kb = 256;
};

struct MachineConfig {
  MachineSection machine;
  PpConfig pp;
  CpConfig cp;
  MemoryConfig memory;
  NetworkConfig network;
  DsmConfig dsm;
  CostConfig cost;
  EmulatorSection emulator;

  [[nodiscard]] bool has_cp() const { return machine.kind == MachineKind::Ncp2; }
};

// Built-in defaults: the NCP2 machine, or the same hardware without protocol controllers.
MachineConfig default_config(MachineKind kind);

// Applies the keys of a TOML file / text over `config`. `origin` names the source in errors.
void apply_toml_file(MachineConfig& config, const std::string& path);
void apply_toml_text(MachineConfig& config, std::string_view text, std::string_view origin);
// Applies one "key=value" override (the value is written as on the command line, no quotes).
void apply_override(MachineConfig& config, std::string_view assignment);
// Checks cross-key constraints (positive bandwidths, a possible topology...). Throws ConfigError.
void validate(const MachineConfig& config);

// The effective configuration as a TOML document that apply_toml_text() reads back unchanged.
std::string to_toml(const MachineConfig& config);

struct ConfigKeyInfo {
  std::string key;   // "network.link_bandwidth"
  std::string type;  // "duration", "bandwidth", "integer", ...
  std::string description;
  std::string ncp2_default;  // as printed by to_toml()
  std::string source;        // where the default comes from
};
std::vector<ConfigKeyInfo> config_keys();

// The closest registered key to `unknown`, or "" when nothing is close.
std::string suggest_key(std::string_view unknown);

}  // namespace ncp2::emu
