#pragma once
// The fiber runner (issue 45, docs/fiber-runner.md): each node's program is a copy of the shared
// object ncp2-cc embedded in the executable (tmk/fiber_abi.hpp), loaded into the emulator's own
// process, and runs on a fiber of its own. A request is a fiber switch: the node's program posts
// it in its channel and switches to the node's PP fiber, which serves it as it serves a process's
// request and switches back. No process, no futex, no signal per fault: the program reaches shared
// memory through ncp2-cc's guards, which check the node's page states and redirect every access
// to the node's copy of the heap.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "emulator/fiber_switch.hpp"
#include "tmk/fiber_abi.hpp"
#include "tmk/host/node_program.hpp"
#include "tmk/loaded_image.hpp"

namespace ncp2::tmk {

// The program's shared object for one run: read from the executable once, written to a file (the
// line tables are read from it), loaded once per node. Reserves the heap's program address range
// (kHeapBase) so that code without the guards touching shared memory traps into the backstop
// instead of reaching whatever lies there.
class FiberProgram {
 public:
  // Throws workloads::WorkloadError with the reason (no object, a copy that cannot be loaded).
  FiberProgram(const std::string& executable, std::size_t heap_bytes);
  ~FiberProgram();
  FiberProgram(const FiberProgram&) = delete;
  FiberProgram& operator=(const FiberProgram&) = delete;

  // The object's file: its line tables name the program's sources (addresses relative to 0).
  [[nodiscard]] const std::string& object_path() const { return object_path_; }
  [[nodiscard]] const std::string& executable() const { return executable_; }
  [[nodiscard]] std::size_t heap_bytes() const { return heap_bytes_; }
  // A new copy of the object in this process (its own globals): a dlopen handle.
  void* load_copy(int node);

 private:
  std::string executable_;
  std::string directory_;  // a private temporary directory holding the object's file
  std::string object_path_;
  std::vector<std::byte> bytes_;
  std::size_t loaded_bytes_ = 0;  // what each copy holds of them (node_fiber.cpp loaded_extent)
  std::size_t heap_bytes_ = 0;
};

// Refuses, before anything is loaded, a run of `nodes` nodes that would need more memory mappings
// than the host allows (vm.max_map_count): about 11 per node (a copy of the program, its stack,
// channel, page states, heap copy) beside the emulator's own. Throws workloads::WorkloadError.
void check_fiber_mappings(std::size_t nodes);

struct FiberLaunch {
  FiberProgram* program = nullptr;
  std::vector<std::string> args;  // after argv[0]
  int node = 0;
  int stdout_fd = -1;  // the node's output (taken over: closed by the node)
  int stderr_fd = -1;
  std::byte* access_log = nullptr;  // the node's access log (AccessLog::data) when the run detects races
};

// The per-thread state of libc that each node keeps as its own (a process has its own): errno,
// the standard streams, getopt's state. Swapped at every switch between a node and the emulator.
struct LibcState {
  int error = 0;
  FILE* out = nullptr;
  FILE* err = nullptr;
  int opt_index = 1;
  char* opt_arg = nullptr;
  int opt_err = 1;
  int opt_opt = '?';
  static LibcState current();
  void install() const;
};

class NodeFiber final : public NodeProgram {
 public:
  // Loads the node's copy, maps its channel and its heap, prepares its fiber. Throws
  // workloads::WorkloadError with the reason.
  explicit NodeFiber(const FiberLaunch& launch);
  ~NodeFiber() override;
  NodeFiber(const NodeFiber&) = delete;
  NodeFiber& operator=(const NodeFiber&) = delete;

  [[nodiscard]] Channel& channel() override { return *channel_; }
  [[nodiscard]] unsigned char* bulk() override {
    return reinterpret_cast<unsigned char*>(channel_) + kChannelBytes;
  }
  [[nodiscard]] std::byte* heap() override { return heap_; }
  WaitResult wait_for_request() override { return run_program(); }
  WaitResult resume() override { return run_program(); }
  // Checked every 50 ms while the node's program runs its own code (node_fiber.cpp's tick: the
  // fiber is switched out at the tick, the check runs on the emulator's side, and a limit it
  // throws stops the run with the program left where it was).
  void set_wait_timeout(std::function<void()> check) override { check_ = std::move(check); }
  int reap() override;
  [[nodiscard]] int wait_status() const override { return status_; }
  void kill() override {}

  // The node whose program runs on this thread now (the signal handlers' question), or null.
  static NodeFiber* running();
  // The backstop for code without the guards: a fault at `address` inside the heap's program
  // range. True when the access may now be retried (the node's page mapped there for the rest of
  // its turn); false when the address is not shared memory.
  bool backstop(std::uintptr_t address, bool write, void* pc);
  // A signal the node's program raised (a crash): reported through the copy; never returns.
  [[noreturn]] void report_signal(int signal_number, std::uintptr_t address, void* pc);
  // The 50 ms tick arrived while the program ran at `pc`: inside the copy's own code (never inside
  // libc, whose locks the emulator's side may need), the run's limits are checked.
  void tick(const void* pc);

 private:
  static void entry(emu::fiber_switch::Context* from, emu::fiber_switch::Context* self);
  static void hand_off(void* host);
  [[noreturn]] static void finish(void* host, int status);
  WaitResult run_program();
  void drop_backstop();
  void close_output();

  FiberProgram& object_;
  std::function<void()> check_;
  bool ticked_ = false;  // the fiber was switched out by the tick, not by a request
  LoadedImage image_;    // the copy's segments (the tick's "own code")
  int node_ = 0;
  void* handle_ = nullptr;
  FiberMain main_ = nullptr;
  FiberSignal signal_ = nullptr;
  FiberFault fault_ = nullptr;
  FiberDetach detach_ = nullptr;
  Channel* channel_ = nullptr;
  std::byte* heap_ = nullptr;
  std::uint8_t* table_ = nullptr;
  std::size_t table_bytes_ = 0;
  void* stack_ = nullptr;
  std::size_t stack_bytes_ = 0;
  FiberAttach attach_;
  std::vector<std::string> arg_strings_;
  std::vector<char*> argv_;
  emu::fiber_switch::Context host_;
  emu::fiber_switch::Context program_;  // the node program's fiber
  bool started_ = false;
  bool exited_ = false;  // ended before its Tmk_startup (FiberAttach::finish)
  int status_ = 0;
  LibcState libc_;  // the node's, while the emulator runs
  std::vector<std::uint32_t> backstop_pages_;
};

}  // namespace ncp2::tmk
