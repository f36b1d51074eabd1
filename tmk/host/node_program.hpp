#pragma once
// One node's program as the emulator's driver (program.cpp) runs it: a process of the program
// (node_process.hpp, the process runner) or a copy of it on a fiber in the emulator's own process
// (node_fiber.hpp, the fiber runner). Either way the node and the emulator take turns on the
// node's channel (tmk/channel.hpp): the program runs only until its next request, so exactly one
// of them runs at a time and the run is deterministic.
#include <cstddef>
#include <functional>

#include "tmk/channel.hpp"

namespace ncp2::tmk {

// How a wait for the program's next request ended.
enum class WaitResult { Request, Exited };

class NodeProgram {
 public:
  NodeProgram() = default;
  virtual ~NodeProgram() = default;
  NodeProgram(const NodeProgram&) = delete;
  NodeProgram& operator=(const NodeProgram&) = delete;

  [[nodiscard]] virtual Channel& channel() = 0;
  [[nodiscard]] virtual unsigned char* bulk() = 0;
  // The snapshots of the pages whose write faults the node took at once (DeferredFault).
  [[nodiscard]] std::byte* snapshots() { return reinterpret_cast<std::byte*>(bulk() + kBulkBytes); }
  // The node's copy of the shared heap (the protocol's view of the node's memory).
  [[nodiscard]] virtual std::byte* heap() = 0;

  // Runs the program up to its first request (it runs freely until its Tmk_startup).
  virtual WaitResult wait_for_request() = 0;
  // Hands the turn to the program and waits for its next request.
  virtual WaitResult resume() = 0;
  // Called every 50 ms while the program runs its own code without a request (it may throw: the
  // run's limits, dsm::Runtime::check_limits). A fiber cannot be interrupted: it never calls it.
  virtual void set_wait_timeout(std::function<void()> check) = 0;
  // The program ended (Exit request, or it died): its wait status (as waitpid gives it).
  virtual int reap() = 0;
  [[nodiscard]] virtual int wait_status() const = 0;
  // Ends the program if it still runs (a failed run).
  virtual void kill() = 0;
};

}  // namespace ncp2::tmk
