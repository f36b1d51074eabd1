#pragma once
// The runtime's fiber mode (tmk/fiber_abi.hpp, issue 45): the same runtime linked into the
// program's shared object, run as a fiber of the emulator by `ncp2 run --runner fiber`. Internal
// to libncp2tmk; no C++ library at run time.
#include <cstddef>
#include <cstdint>

namespace ncp2::tmk {
struct FiberAttach;
}

namespace ncp2::tmk::fiber {

// True when this copy of the runtime runs as a fiber of the emulator (attached by
// __ncp2_tmk_fiber_main), false in a process (the process runner, real runs, native).
bool active();

// The address of an instruction as the emulator's line tables know it: under the process runner
// the address itself; in a fiber the copy's load address is taken off (every node's copy is
// loaded at another address; the emulator reads the line tables of the shared object at 0).
std::uint64_t program_pc(const void* pc);

// exit(), _exit() and their kin called by the program, returning from main: the node ends as a
// process's exit ends it (the copy's atexit handlers and destructors, then an Exit request without
// a place, so the emulator says that the node exited without Tmk_exit; before Tmk_startup, the
// fiber just ends). `pc` is where it was called (unused: a process's exit has no place either).
[[noreturn]] void end_node(int status, const void* pc);

// abort(), a failed assert(): the node's run stops with what happened, as the process runner's
// signal handler reports a crash (a Crash request with `signal_number`), placed by the stack's
// frames (the program's innermost line) as a crash inside a library call is; `pc` unused.
[[noreturn]] void crash(int signal_number, const char* text, const void* pc);

// _exit(), _Exit(), quick_exit(): a process ends at once, without its exit handlers (so without the
// runtime's Exit request); the node ends the same way, and the emulator says that it exited with
// `status` without Tmk_exit.
[[noreturn]] void vanish(int status);

// A signal that ends a process without a report of the runtime's (SIGKILL, SIGTERM, ...) raised by
// the program: the node ends as a process killed by it ends (its wait status says so).
[[noreturn]] void killed(int signal_number);

// A call the fiber runner cannot run (a signal handler, a thread): the run stops with `text`
// (a Misuse request), which should name the process runner as the way to run the program.
[[noreturn]] void refuse(const char* text, const void* pc);

// The program's name as its process would have it (program_invocation_short_name: in a fiber,
// the emulator's), for libc's messages.
const char* program_name();

// The runtime's own use (tmk_runtime.cpp):
// Runs the copy's atexit handlers and static destructors, once (what exit() runs in a process).
void finalize_copy();
// The emulator is unloading the copy: a request returns at once, unanswered (fiber_abi.hpp).
bool detached();
// Hands the turn to the emulator (a fiber switch) and returns with its reply.
void hand_off();
// What the emulator attached the copy to (its channel, its heap copy and page states).
const FiberAttach& attachment();
// An address of the program's own data (Tmk_distribute's globals) as every node's copy knows it,
// and back: in a fiber, relative to the copy's load address; in a process, the address itself.
std::uint64_t program_address(const void* address);
void* local_address(std::uint64_t program_address);
// Whether [address, address + bytes) lies in the copy's own image (its globals and statics).
bool in_program_image(const void* address, std::size_t bytes);

}  // namespace ncp2::tmk::fiber
