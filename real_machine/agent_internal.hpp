#pragma once
// The agent's private state shared by its local thread (agent_program.cpp, agent_operations.cpp)
// and its service thread (agent_service.cpp).
#include <stdexcept>
#include <string>

#include "lrc/ports.hpp"
#include "lrc/types.hpp"
#include "real_machine/agent.hpp"

namespace ncp2::real {

// The protocol core's cost hooks: a real run's costs are measured, not modelled.
inline lrc::NoCosts no_costs;

// The run stopped (this node or another failed): unwinds the local thread.
struct RunAborted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ncp2::real
