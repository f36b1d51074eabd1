// The emulated machine under the operations' driver (lrc/driver.hpp): what the PP is attributed
// to, what entering TreadMarks code costs it, and the machine's checks at each synchronization.
// The exchanges themselves are in page_faults.cpp, locks.cpp and barriers.cpp.
#include "dsm/runtime.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

Operation Runtime::NodeTransport::operation() const {
  return static_cast<Operation>(ns_.pp->attribution().operation);
}

void Runtime::NodeTransport::set_operation(Operation op) {
  ns_.pp->set_operation(static_cast<std::uint8_t>(op));
}

// An access fault and a synchronization call reach the node's protocol server (on a real node,
// its agent runs them); a first write is taken by the program itself.
void Runtime::NodeTransport::charge(lrc::Entry entry) {
  if (entry != lrc::Entry::WriteTrap) ns_.pp->note_server_active();
  switch (entry) {
    case lrc::Entry::AccessTrap:  // on a real node, handed to its agent as a Tmk call is
      ns_.pp->compute(rt_.config_.dsm.fault_trap + rt_.config_.dsm.fault_handoff);
      return;
    case lrc::Entry::WriteTrap:  // NCP2's snoopy logic sees the write: no trap
      if (!rt_.cluster_.has_cp() && !ns_.timed_by_program) ns_.pp->compute(rt_.config_.dsm.fault_trap);
      return;
    case lrc::Entry::Handler:
      ns_.pp->compute(rt_.config_.dsm.protocol_handler);
      return;
  }
}

void Runtime::NodeTransport::synchronizing(Operation op, std::uint64_t object, bool after) {
  rt_.checks_.synchronizing(ns_.id, op, static_cast<std::uint32_t>(object), after);
}

}  // namespace ncp2::dsm
