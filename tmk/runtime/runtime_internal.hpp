#pragma once
// INTERNAL to libncp2tmk: what the runtime's parts (tmk_runtime.cpp, access_recording.cpp,
// fiber_mode.cpp) offer each other. No C++ library at run time.
#include <cstddef>
#include <cstdint>

#include "tmk/channel.hpp"

namespace ncp2::tmk::runtime {

// A request to the emulator and its reply applied (tmk_runtime.cpp's `call`).
std::int64_t request(Request kind, std::uint64_t arg0, std::uint64_t arg1, void* pc);
// A Crash or Misuse request: the emulator stops the run and never answers.
[[noreturn]] void report_and_stop(Request kind, int signal_number, std::uint64_t address, void* pc,
                                  const char* text);
// Whether Tmk_startup ran.
bool started();
// The Exit request of a started node (once).
void exit_started_node(int status, void* pc);
// The fiber mode's channel, given by the emulator instead of inherited as a file descriptor.
void use_channel(Channel* channel);

// A file descriptor the emulator passed in the environment variable `name`; -1 when unset.
int fd_from_env(const char* name);
// The race checks' access log, when the emulator passed one (access_recording.cpp): a process maps
// it from the descriptor in its environment; a fiber is given its mapping.
void map_access_log(std::uintptr_t heap_base, std::size_t heap_bytes, std::size_t page_bytes);
void use_access_log(std::byte* log, std::uintptr_t heap_base, std::size_t heap_bytes, std::size_t page_bytes);

}  // namespace ncp2::tmk::runtime
