#pragma once
// The agent's private state shared by its local thread (agent_program.cpp, agent_operations.cpp)
// and its service thread (agent_service.cpp).
#include <stdexcept>
#include <string>

#include "lrc/ports.hpp"
#include "lrc/types.hpp"
#include "real_machine/agent.hpp"

namespace ncp2::real {

// The request being served: its time is known once the program resumes.
struct NodeAgent::Pending {
  std::uint32_t scope = 0;
  bool startup = false;                             // joining the run: not the program's time
  lrc::Operation operation = lrc::Operation::None;  // the first it entered: its time outside waits
  double posted_ns = 0;
  double picked_ns = 0;  // when the agent took the request
  double replied_ns = 0;
  std::vector<Exchange> exchanges;  // its waits for other nodes, in order
};

// One part of a wait's time.
inline double& part(MeasuredWait& w, carnival::WaitPart p) { return w.parts[static_cast<std::size_t>(p)]; }

// The protocol core's cost hooks: a real run's costs are measured, not modelled.
inline lrc::NoCosts no_costs;

// The run stopped (this node or another failed): unwinds the local thread.
struct RunAborted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ncp2::real
