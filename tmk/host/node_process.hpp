#pragma once
// One node of a TreadMarks-API program: a process of the program started by the emulator, its
// channel (tmk/channel.hpp) and its shared memory. The process runs only when the emulator hands
// it the turn and until its next request; the emulator waits meanwhile, so exactly one of them
// runs at a time and the run is deterministic.
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tmk/channel.hpp"

namespace ncp2::tmk {

struct LaunchSpec {
  std::string program;            // path of the executable
  std::vector<std::string> args;  // after argv[0]
  int node = 0;
  std::size_t heap_bytes = 0;  // shared memory of the node (a memfd, mapped here too)
  int stdout_fd = -1;          // where the process's output goes (-1: inherited)
  int stderr_fd = -1;
  int access_log_fd = -1;  // the node's access log (tmk/host/access_log.hpp) when the run detects races
};

// How a wait for the process's next request ended.
enum class WaitResult { Request, Exited };

class NodeProcess {
 public:
  // Creates the channel and the shared memory and starts the process (ASLR off, so that globals
  // have the same address on every node). Throws std::runtime_error with the reason.
  explicit NodeProcess(const LaunchSpec& spec);
  ~NodeProcess();
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  [[nodiscard]] Channel& channel() { return *channel_; }
  [[nodiscard]] unsigned char* bulk() { return bulk_; }
  // The snapshots of the pages whose write faults the node took at once (DeferredFault).
  [[nodiscard]] std::byte* snapshots() { return reinterpret_cast<std::byte*>(bulk_ + kBulkBytes); }
  [[nodiscard]] std::byte* heap() { return heap_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

  // Waits for the process's first request (it runs freely until its Tmk_startup).
  WaitResult wait_for_request();
  // Hands the turn to the process and waits for its next request.
  WaitResult resume();
  // Called every 50 ms while the process runs its own code without a request (it may throw: the
  // run's limits, dsm::Runtime::check_limits).
  void set_wait_timeout(std::function<void()> check) { wait_timeout_ = std::move(check); }
  // The process ended (Exit request, or it died): reaps it and returns the wait status.
  int reap();
  [[nodiscard]] bool reaped() const { return reaped_; }
  [[nodiscard]] int wait_status() const { return status_; }
  // Ends the process if it still runs (a failed run).
  void kill();
  // Whether it still runs (reaps it when it ended).
  [[nodiscard]] bool running() { return still_running(); }

 private:
  std::function<void()> wait_timeout_;
  bool still_running();

  pid_t pid_ = -1;
  int channel_fd_ = -1;
  int heap_fd_ = -1;
  Channel* channel_ = nullptr;
  unsigned char* bulk_ = nullptr;
  std::byte* heap_ = nullptr;
  std::size_t heap_bytes_ = 0;
  bool reaped_ = false;
  int status_ = 0;
};

// "exited with status 3", "was killed by SIGSEGV".
std::string describe_wait_status(int status);

}  // namespace ncp2::tmk
