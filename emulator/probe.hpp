#pragma once
// The probe interface through which the emulator reports where each processor's time goes. The
// profiler (carnival/) implements it; with no probe attached the cost is one null test per
// transition. Spans are reported in time order per processor, as [from, to).
#include <cstdint>

#include "emulator/ids.hpp"
#include "emulator/time.hpp"

namespace ncp2::emu {

// What the layer above says the PP is doing, for attribution (set by dsm/ and carnival/).
struct Attribution {
  std::uint32_t scope = 0;     // source scope (0 = the whole program)
  std::uint8_t operation = 0;  // DSM operation (0 = application code)
  bool in_wait = false;        // inside a DSM wait: t0 .. resumption
};

enum class PpActivity : std::uint8_t {
  Compute,   // running the fiber's code (application or DSM, per the attribution)
  Blocked,   // fiber suspended, waiting to be woken
  Handler,   // an interrupt handler, including its entry overhead
  Finished,  // the fiber has ended
};

// An interrupt handler's nature: servicing others (Prste) or part of the PP's own wait.
struct HandlerTag {
  bool service = true;
  std::uint8_t operation = 0;  // the DSM operation it serves
};

class ActivityProbe {
 public:
  virtual ~ActivityProbe() = default;
  virtual void pp_span(NodeId node, TimePoint from, TimePoint to, PpActivity activity,
                       const Attribution& attribution, HandlerTag tag) = 0;
  virtual void cp_span(NodeId node, TimePoint from, TimePoint to) = 0;  // a command executing
};

}  // namespace ncp2::emu
