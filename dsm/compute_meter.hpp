#pragma once
// The measured time model's hook into the DSM runtime (docs/timing.md). With a meter installed,
// the native workload code a node runs between two DSM entry points (page fault, lock acquire /
// release, barrier, compute call, exit) is a "stretch"; the runtime asks the meter at each entry
// what the stretch that just ended costs in target time and charges it to the node's PP as
// computation. Without a meter (the default, deterministic model) none of this runs.
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
};

}  // namespace ncp2::dsm
