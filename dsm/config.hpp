#pragma once
// The configuration of a whole emulated system: the machine (emulator/config.hpp) plus what the
// TreadMarks protocol costs ([dsm]) and what workload code costs in the deterministic time model
// ([cost]). One table of keys (the machine's, then the protocol's) drives TOML files, `--set`,
// `ncp2 config` and the configuration stored with every run.
#include <string>
#include <string_view>
#include <vector>

#include "emulator/config.hpp"
#include "emulator/config_key.hpp"
#include "lrc/config.hpp"

namespace ncp2::dsm {

// Costs of the TreadMarks protocol code itself.
struct DsmConfig {
  emu::Duration fault_trap{};            // PP takes an access fault and enters the DSM handler
  emu::Duration protocol_handler{};      // one protocol handler's bookkeeping (lock, barrier, request)
  emu::Duration fault_handoff{};         // an access fault handed to the node's server (a real node)
  emu::Duration per_write_notice{};      // creating or applying one write notice
  emu::Duration close_per_page{};        // a closing interval's own work per page it wrote (a real node)
  emu::Duration diff_scan_per_word{};    // software diff creation, per word of the page (treadmarks)
  emu::Duration diff_apply_per_word{};   // software diff application, per word written (treadmarks)
  emu::Duration diff_encode_per_word{};  // software diff creation, per changed word copied (treadmarks)
  emu::Duration diff_per_run{};          // software diff creation, per run of changed words (treadmarks)
  // 1: virtual time follows TreadMarks' lazy diff creation (treadmarks machine): a page written in
  // successive intervals keeps one twin, and its diff is made (and charged) only when someone
  // requests it or a write notice invalidates the page. 0: a diff per interval, made at the page's
  // next write. The data path is the same either way (docs/protocol.md).
  int lazy_diffs = 0;
  int gc_threshold_kb = 1024;  // diffs + write notices per node that trigger a GC at a barrier
  int barrier_manager = 0;     // node that manages barriers
  // The policies the emulated and the real runs honour alike (lrc/config.hpp).
  lrc::FirstTouch first_touch = lrc::FirstTouch::FromHome;
  lrc::GcCopies gc_copies = lrc::GcCopies::LastWriter;
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
  // A program built with ncp2-cc (tmk/): cycles per instruction its instrumentation counted.
  double instruction = 1.0;
};

// Programs built with ncp2-cc and run with `ncp2 run ./prog` (tmk/, docs/tmk-programs.md).
struct TmkConfig {
  int heap_mb = 64;  // shared memory for Tmk_malloc, per node
  // Instructions between two samples of where the program is (its computation by source line).
  int sample_instructions = 10000;
};

// The machine and the protocol: what a run is configured with. A SystemConfig is a MachineConfig
// (the emulator takes it as one).
struct SystemConfig : emu::MachineConfig {
  DsmConfig dsm;
  CostConfig cost;
  TmkConfig tmk;
};

// What the protocol core takes of a configuration (its sizes and policies; no costs).
lrc::ProtocolConfig protocol_config(const SystemConfig& config);

// Built-in defaults: the NCP2 machine, or the same hardware without protocol controllers.
SystemConfig default_config(emu::MachineKind kind);

// Applies the keys of a TOML file / text over `config`. `origin` names the source in errors.
void apply_toml_file(SystemConfig& config, const std::string& path);
void apply_toml_text(SystemConfig& config, std::string_view text, std::string_view origin);
// Applies one "key=value" override (the value is written as on the command line, no quotes).
void apply_override(SystemConfig& config, std::string_view assignment);
// Checks cross-key constraints (the machine's, then the protocol's). Throws emu::ConfigError.
void validate(const SystemConfig& config);

// The effective configuration as a TOML document that apply_toml_text() reads back unchanged.
std::string to_toml(const SystemConfig& config);

// Every key with its type, meaning, ncp2 default and source.
std::vector<emu::config::ConfigKeyInfo> config_keys();

// The closest registered key to `unknown`, or "" when nothing is close.
std::string suggest_key(std::string_view unknown);

}  // namespace ncp2::dsm
