#pragma once
// The measured time model's hook into the DSM runtime (docs/timing.md). With a meter installed,
// the native workload code a node runs between two DSM entry points (page fault, lock acquire /
// release, barrier, compute call, exit) is a "stretch"; the runtime asks the meter at each entry
// what the stretch that just ended costs in target time and charges it to the node's PP as
// computation. Without a meter (the default, deterministic model) none of this runs.
#include <cstdint>
#include <string>

#include "dsm/types.hpp"
#include "emulator/time.hpp"

namespace ncp2::dsm {

class ComputeMeter {
 public:
  virtual ~ComputeMeter() = default;
  ComputeMeter() = default;
  ComputeMeter(const ComputeMeter&) = delete;
  ComputeMeter& operator=(const ComputeMeter&) = delete;

  // The node's workload body starts: its first stretch begins.
  virtual void begin(NodeId node) = 0;
  // The workload enters the DSM: the current stretch ends. Returns the target time to charge
  // (zero when the node is not being measured, e.g. after finish()).
  virtual emu::Duration end_stretch(NodeId node) = 0;
  // The DSM returns to the workload: the next stretch begins (ignored after finish()).
  virtual void resume(NodeId node) = 0;
  // The body returned (its last stretch was charged): nothing more is measured on the node.
  virtual void finish(NodeId node) = 0;

  // A node whose native code runs in another process (a user program's node): the emulator's
  // clock between two entries would time the hand-off, not the program, so the node reports the
  // TSC ticks it ran and its caller charges them (external_duration); end_stretch then charges
  // nothing on that node. A meter that cannot time such nodes says why (an empty string: it can).
  [[nodiscard]] virtual std::string set_external(NodeId node) = 0;
  // The target time of `tsc_ticks` ticks of the host's TSC run by an external node's process.
  [[nodiscard]] virtual emu::Duration external_duration(NodeId node, std::uint64_t tsc_ticks) = 0;
};

}  // namespace ncp2::dsm
