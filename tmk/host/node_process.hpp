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
#include "tmk/host/node_program.hpp"

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

class NodeProcess final : public NodeProgram {
 public:
  // Creates the channel and the shared memory and starts the process (ASLR off, so that globals
  // have the same address on every node). Throws std::runtime_error with the reason.
  explicit NodeProcess(const LaunchSpec& spec);
  ~NodeProcess() override;
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  [[nodiscard]] Channel& channel() override { return *channel_; }
  [[nodiscard]] unsigned char* bulk() override { return bulk_; }
  [[nodiscard]] std::byte* heap() override { return heap_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

  WaitResult wait_for_request() override;
  WaitResult resume() override;
  void set_wait_timeout(std::function<void()> check) override { wait_timeout_ = std::move(check); }
  // Reaps the process and returns its wait status.
  int reap() override;
  [[nodiscard]] bool reaped() const { return reaped_; }
  [[nodiscard]] int wait_status() const override { return status_; }
  void kill() override;
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
