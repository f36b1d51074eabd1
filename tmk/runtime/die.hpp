#pragma once
// The runtime's last word (libncp2tmk, no C++ library): a message on standard error, exit 70.
// Async-signal-safe (write and _exit only).
#include <unistd.h>

#include <cstring>

namespace ncp2::tmk {

[[noreturn]] inline void die(const char* message) {
  constexpr char kPrefix[] = "ncp2 tmk runtime: ";
  (void)!write(STDERR_FILENO, kPrefix, sizeof(kPrefix) - 1);
  (void)!write(STDERR_FILENO, message, std::strlen(message));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(70);
}

}  // namespace ncp2::tmk
