// The "user's program" of bench/fiber_candidates (issue 45): a shared object with
// NCP2_FIBER_GLOBALS_KIB KiB of writable globals, half initialized (.data), half zero (.bss), and
// a few functions that use them and libc's state. bench/CMakeLists.txt builds it once per segment
// size (4 KiB, 64 KiB, 1 MiB). The benchmark privatizes its writable segment per rank, loads it
// into dlmopen namespaces, and dlopens renamed copies of it.
#include <cstdlib>

#ifndef NCP2_FIBER_GLOBALS_KIB
#error "NCP2_FIBER_GLOBALS_KIB (the size of the writable globals) is set by bench/CMakeLists.txt"
#endif

namespace {
// Room left in the segment's pages for what the toolchain adds there (.got.plt, __dso_handle,
// the counter below), so that the writable segment is exactly NCP2_FIBER_GLOBALS_KIB KiB.
constexpr unsigned kToolchainRoom = 512;
constexpr unsigned kArrayBytes = (NCP2_FIBER_GLOBALS_KIB * 1024 - kToolchainRoom) / 2;
}  // namespace

extern "C" {
// NOLINTBEGIN: the benchmark finds these by name (dlsym), as a runner would find a program's.
unsigned char ncp2_fiber_data[kArrayBytes] = {1};
unsigned char ncp2_fiber_bss[kArrayBytes];
long ncp2_fiber_counter = 0;

// A global that differs per rank when the globals are private: what the benchmark checks.
long ncp2_fiber_bump(long by) {
  ncp2_fiber_counter += by;
  return ncp2_fiber_counter;
}

// libc's hidden state as a program sees it: shared by every copy loaded with dlopen, private to
// each dlmopen namespace (each has its own libc).
int ncp2_fiber_rand() { return std::rand(); }
void ncp2_fiber_srand(unsigned seed) { std::srand(seed); }

// The program's own thread-local variable: a TLS block of each loaded copy (a module of its own).
thread_local long ncp2_fiber_tls = 0;
long* ncp2_fiber_tls_address() { return &ncp2_fiber_tls; }
// NOLINTEND
}
