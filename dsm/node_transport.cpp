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
  if (entry != lrc::Entry::WriteTrap && entry != lrc::Entry::Return) ns_.pp->note_server_active();
  switch (entry) {
    case lrc::Entry::AccessTrap:  // on a real node, handed to its agent as a Tmk call is
      ns_.pp->compute(rt_.config_.dsm.fault_trap + rt_.config_.dsm.fault_handoff + handoff_wake(true));
      return;
    case lrc::Entry::WriteTrap:  // NCP2's snoopy logic sees the write: no trap
      if (!rt_.cluster_.has_cp()) ns_.pp->compute(rt_.config_.dsm.fault_trap);
      return;
    case lrc::Entry::Handler:
      ns_.pp->compute(rt_.config_.dsm.protocol_handler + handoff_wake(true));
      return;
    case lrc::Entry::Return:
      if (const emu::Duration wake = handoff_wake(false); wake > emu::Duration{0}) ns_.pp->compute(wake);
      if (ns_.entries == 0) ns_.handed_back = rt_.kernel_.now();
      return;
  }
}

// A real node's program posts an entry to its agent and waits for the turn back; each side waits
// awake dsm.handoff_awake_window, then sleeps on a futex (tmk/channel.hpp). Entering: the agent
// sleeps if it handed the program back that long ago. Returning: the program sleeps if the entry
// took that long. Either way the hand-off wakes a sleeper: dsm.handoff_wake. Only the outermost
// entry hands off (a barrier's garbage collection runs in the agent).
emu::Duration Runtime::NodeTransport::handoff_wake(bool entering) {
  const dsm::DsmConfig& c = rt_.config_.dsm;
  const emu::TimePoint now = rt_.kernel_.now();
  const bool outermost = entering ? ns_.entries++ == 0 : --ns_.entries == 0;
  if (entering && outermost) ns_.entry_began = now;
  if (!outermost || c.handoff_awake_window <= emu::Duration{0}) return emu::Duration{0};
  const emu::TimePoint since = entering ? ns_.handed_back : ns_.entry_began;
  return now - since >= c.handoff_awake_window ? c.handoff_wake : emu::Duration{0};
}

void Runtime::NodeTransport::synchronizing(Operation op, std::uint64_t object, bool after) {
  rt_.checks_.synchronizing(ns_.id, op, static_cast<std::uint32_t>(object), after);
}

}  // namespace ncp2::dsm
