#pragma once
// The runtime's last word (libncp2tmk, no C++ library): a message on standard error, exit 70 (in
// a fiber of the emulator: the run stops with the message). Async-signal-safe (write and _exit only).
#include <unistd.h>

#include <cstring>

#include "tmk/runtime/fiber_mode.hpp"

namespace ncp2::tmk {

[[noreturn]] inline void die(const char* message) {
  // A fiber shares the emulator's process: it stops the run with the message instead of exiting.
  if (fiber::active()) fiber::refuse(message, nullptr);
  constexpr char kPrefix[] = "ncp2 tmk runtime: ";
  (void)!write(STDERR_FILENO, kPrefix, sizeof(kPrefix) - 1);
  (void)!write(STDERR_FILENO, message, std::strlen(message));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(70);
}

}  // namespace ncp2::tmk
