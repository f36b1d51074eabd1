#pragma once
// Every timing parameter of the emulated machine (the hardware: nodes, PP, CP, memory, network),
// with NCP2 defaults (SPEC §1). The protocol's costs live with the protocol (dsm/config.hpp).
// One table of keys (config_keys.cpp) drives TOML parsing, `--set` overrides, "did you mean",
// printing the effective configuration, and the key list in the docs.
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/config_error.hpp"
#include "emulator/config_key.hpp"
#include "emulator/time.hpp"
#include "emulator/units.hpp"

namespace ncp2::emu {

enum class MachineKind { Ncp2, TreadMarks };
std::string_view to_string(MachineKind k);

// The most nodes a run may have (machine.nodes, --nodes): a barrier run of this many fits in
// about 4 GiB of host memory (docs/performance.md, "Scale"). NodeId is 16 bits.
inline constexpr int kMaxNodes = 16384;

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
  // Software cost per byte of a message's payload, at send and again at receive, beyond the copy:
  // programmed I/O into the interface's FIFOs, segmentation into cells (treadmarks).
  Duration message_per_byte{};
  // 1: handlers queued behind a running one need no interrupt of their own (treadmarks' SIGIO
  // handler drains its socket); 0: each handler pays interrupt_overhead.
  int drain_interrupts = 0;
  // A message that arrives while the PP computes waits this long for its handler: a real node's
  // program and protocol server share a host core, and the host's scheduler, not an interrupt,
  // decides when the server runs (ncp2 calibrate measures it). busy_handler_delay_quiet applies
  // instead when no handler ran for busy_handler_quiet_after (0: never): a server that slept long
  // gets the core at once (Linux CFS's credit to sleepers). All 0: interrupts preempt at once.
  Duration busy_handler_delay{};
  Duration busy_handler_delay_quiet{};
  Duration busy_handler_quiet_after{};
  // The scheduler's choice is two-valued, not a mean: this share of the arrivals that would wait
  // busy_handler_delay are served as promptly as a quiet server's (busy_handler_delay_quiet),
  // each arrival drawn from the node's own reproducible sequence. 0: every one waits.
  double busy_handler_prompt_share = 0;
  // An arrival sooner than this after the server last ran is never served promptly (the woken
  // server preempts the program only once it has computed a while since: measured 0 of 41 rounds
  // at 0.125-1 ms, issue 43's fifth session). 0: the share applies from the start.
  Duration busy_handler_prompt_after{};
  // The host scheduler's tick (0: none). A computing program is preempted only at a tick of its
  // core, so a server waiting for that core gets it at the node's next tick (a fixed grid per node,
  // its phase drawn from the node), not after busy_handler_delay: a request at a random moment waits
  // half a tick on average, one right after the server last ran (a burst) nearly a whole tick.
  Duration busy_handler_tick{};
  // 1: the node's protocol server is a process of its own sharing the PP's core (a real node's
  // agent), so the program's time is what the program sees: a request served while it computes,
  // works in the protocol or waits is counted there (as a real run records it), not as Prste. Only
  // the profile changes, never a time.
  int separate_server = 0;
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

struct EmulatorSection {
  int fiber_stack_kb = 256;
  [[nodiscard]] std::size_t fiber_stack_bytes() const {
    return static_cast<std::size_t>(fiber_stack_kb) * 1024;
  }
};

struct MachineConfig {
  MachineSection machine;
  PpConfig pp;
  CpConfig cp;
  MemoryConfig memory;
  NetworkConfig network;
  EmulatorSection emulator;

  [[nodiscard]] bool has_cp() const { return machine.kind == MachineKind::Ncp2; }
};

// Built-in defaults: the NCP2 machine, or the same hardware without protocol controllers.
MachineConfig default_machine_config(MachineKind kind);

// Checks cross-key constraints (positive bandwidths, a possible topology...). Throws ConfigError.
void validate(const MachineConfig& config);

// The machine's configuration keys, in the order `ncp2 config` prints them (config_keys.cpp).
// Reading files and overrides: config_reader.hpp, over the whole system's keys (dsm/config.hpp).
std::vector<config::Key<MachineConfig>> machine_keys();

}  // namespace ncp2::emu
