#pragma once
// The agent's private state shared by its local thread (agent_program.cpp) and its service
// thread (agent_service.cpp).
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "real_machine/agent.hpp"

namespace ncp2::real {

// TreadMarks' distributed lock: the manager (lock % nodes) remembers the last requester and
// forwards each request to it; the token moves from releaser to acquirer with the intervals the
// acquirer has not seen.
struct NodeAgent::Lock {
  struct Waiter {
    int node = 0;
    VectorTime known;
    double since_ns = 0;  // when the request reached this node (its SyncDelay starts)
  };
  bool token = false;
  bool held = false;
  std::string held_where;   // where this node acquired it (a deadlock's explanation)
  int last_requester = -1;  // the manager only
  std::optional<Waiter> next;
};

// Node 0: one barrier's arrivals.
struct NodeAgent::BarrierSlot {
  std::vector<bool> arrived;
  std::vector<VectorTime> known;
  std::vector<double> arrived_ns;
  std::vector<IntervalRecord> intervals;  // every node's new intervals
  std::size_t count = 0;
  int last = -1;
  double last_ns = 0;
  bool collect = false;  // some node's diffs outgrew the threshold: collect garbage
};

// The request being served: its time is known once the program resumes.
struct NodeAgent::Pending {
  std::uint32_t scope = 0;
  std::string operation = "none";
  bool waited = false;  // it waited for another node: a wait row, time in Wait (else Extra)
  double posted_ns = 0;
  double picked_ns = 0;  // when the agent took the request
  double remote_ns = 0;  // waiting for other nodes' replies
  double replied_ns = 0;
  WaitRecord wait;
};

// The run stopped (this node or another failed): unwinds the local thread.
struct RunAborted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ncp2::real
