#pragma once
// Small message patterns that exercise the node and network model before any DSM exists: the
// built-in demonstration (`ncp2 demo-network`), the benchmarks and the determinism tests share
// them. Every message goes the machine's real way: through the CPs on ncp2, through the PPs'
// software path and interrupts on treadmarks.
#include <cstdint>
#include <string>
#include <vector>

#include "emulator/config.hpp"
#include "emulator/kernel.hpp"
#include "emulator/message.hpp"

namespace ncp2::emu {

enum class TrafficPattern {
  // Each round: nodes 1..N-1 send an arrival to node 0; when all arrived, node 0 sends a release
  // to each. 2(N-1) messages per round, like a centralized barrier.
  Barrier,
  // Each round: node 0 sends to node 1, which answers. 2 messages per round.
  PingPong,
};

struct TrafficOptions {
  TrafficPattern pattern = TrafficPattern::Barrier;
  int rounds = 1;
  std::uint32_t payload_bytes = 8;
  Duration compute_between_rounds{0};  // each PP computes this long before each round
  bool record_messages = false;        // keep every message's stamp chain
  bool trace_hash = false;
  bool fast_forward = true;  // see Kernel::try_advance; off only to check it changes nothing
};

struct MessageRecord {
  std::uint64_t id = 0;
  NodeId source{};
  NodeId destination{};
  std::string purpose;
  std::uint32_t payload_bytes = 0;
  std::uint32_t wire_bytes = 0;
  std::vector<Stamp> stamps;  // ends with the receiving PP's handler start
};

struct NodeSummary {
  TimePoint finish = kTimeZero;
  std::uint64_t interrupts = 0;
  Duration pp_handlers{0};
  std::uint64_t cp_commands = 0;
  Duration cp_busy{0};
  Duration cp_queue_wait{0};
};

struct TrafficResult {
  RunResult run;
  std::uint64_t messages = 0;
  std::int64_t wire_bytes = 0;
  Duration network_contention{0};
  std::string topology;
  std::vector<MessageRecord> records;
  std::vector<NodeSummary> nodes;
  std::uint64_t trace_digest = 0;
};

std::string_view to_string(TrafficPattern p);
TrafficResult run_traffic(const MachineConfig& config, const TrafficOptions& options);

}  // namespace ncp2::emu
