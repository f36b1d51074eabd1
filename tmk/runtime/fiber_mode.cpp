// The runtime's fiber mode (fiber_mode.hpp, tmk/fiber_abi.hpp): the entry points the emulator
// calls in each node's copy of the program, and what the rest of the runtime asks of the mode.
// In a process (the process runner, real runs, a native run) nothing here is attached and every
// function is the identity or unused. No C++ library at run time.
#include "tmk/runtime/fiber_mode.hpp"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>

#include <cstdio>
#include <cstring>

#include "tmk/fiber_abi.hpp"
#include "tmk/loaded_image.hpp"
#include "tmk/runtime/runtime_internal.hpp"

extern "C" {
// The program's main, whatever its C or C++ signature (both take argc and argv in the same
// registers); named by its symbol, since C++ may not name main.
int ncp2_program_main(int argc, char** argv) __asm__("main");  // NOLINT: the program's entry
// This shared object's handle for its atexit handlers and static destructors (crtbeginS.o).
extern void* __dso_handle __attribute__((visibility("hidden")));  // NOLINT: the C++ ABI's name
void __cxa_finalize(void* dso);                                   // NOLINT: the C++ ABI
}

namespace ncp2::tmk::fiber {
namespace {

struct Attached {
  FiberAttach attach;
  bool active = false;
  bool detached = false;  // the emulator is unloading the copy
  const char* name = "";  // argv[0]'s last component
  LoadedImage image;      // the copy's load address and segments
};
Attached f;  // NOLINT: the copy's one attachment (each node's copy has its own)

bool in_image(std::uintptr_t a) { return f.image.contains(a); }

}  // namespace

bool active() { return f.active; }

bool detached() { return f.detached; }

const char* program_name() { return f.active ? f.name : program_invocation_short_name; }

std::uint64_t program_pc(const void* pc) { return program_address(pc); }

std::uint64_t program_address(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  if (!f.active || a == 0 || !in_image(a)) return a;
  return a - f.image.base;
}

void* local_address(std::uint64_t program_address) {
  if (!f.active || program_address >= f.image.end - f.image.base)
    return reinterpret_cast<void*>(program_address);
  return reinterpret_cast<void*>(program_address + f.image.base);
}

bool in_program_image(const void* address, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  return in_image(a) && bytes <= f.image.end - a;
}

void hand_off() { f.attach.hand_off(f.attach.host); }

const FiberAttach& attachment() { return f.attach; }

// What exit() does in a process before it ends: the copy's atexit handlers and static destructors,
// on the node's fiber, with the node's output (they may still call Tmk).
void finalize_copy() {
  static bool finalized = false;
  if (finalized) return;
  finalized = true;
  __cxa_finalize(&__dso_handle);
}

[[noreturn]] void end_node(int status, const void* /*pc*/) {
  finalize_copy();
  if (runtime::started()) runtime::exit_started_node(status, nullptr);
  for (;;) f.attach.finish(f.attach.host, status);  // before Tmk_startup: the fiber just ends
}

[[noreturn]] void crash(int signal_number, const char* text, const void* /*pc*/) {
  runtime::report_and_stop(Request::Crash, signal_number, 0, nullptr, text);
}

[[noreturn]] void vanish(int status) {
  for (;;) f.attach.finish(f.attach.host, status & 0xff);
}

[[noreturn]] void killed(int signal_number) {
  for (;;) f.attach.finish(f.attach.host, -signal_number);  // a negative status: killed by the signal
}

[[noreturn]] void refuse(const char* text, const void* pc) {
  runtime::report_and_stop(Request::Misuse, 0, 0, const_cast<void*>(pc), text);
}

}  // namespace ncp2::tmk::fiber

extern "C" {

// What the emulator checks before attaching a copy: the ABI it was built against.
extern const std::uint32_t __ncp2_tmk_fiber_abi[3] = {  // NOLINT: read by the emulator with dlsym
    ncp2::tmk::kFiberAbiVersion, sizeof(ncp2::tmk::FiberAttach), sizeof(ncp2::tmk::Channel)};

// NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming): the ABI's name
[[noreturn]] void __ncp2_tmk_fiber_main(const ncp2::tmk::FiberAttach* attach, int argc, char** argv) {
  using ncp2::tmk::fiber::f;
  f.attach = *attach;
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&__ncp2_tmk_fiber_main), &self);
  f.image = ncp2::tmk::loaded_image(reinterpret_cast<std::uintptr_t>(self.dli_fbase));
  f.active = true;
  if (argc > 0 && argv[0]) {
    const char* slash = std::strrchr(argv[0], '/');
    f.name = slash ? slash + 1 : argv[0];
  }
  ncp2::tmk::runtime::use_channel(attach->channel);
  attach->channel->load_base = 0;  // pcs are reported relative to the copy (program_pc)
  const int status = ncp2_program_main(argc, argv);
  ncp2::tmk::fiber::end_node(status, nullptr);  // as returning from main ends a process
}

[[noreturn]] void __ncp2_tmk_fiber_signal(int signal_number, std::uint64_t address, void* pc) {  // NOLINT
  char text[160];
  if (signal_number == SIGSEGV || signal_number == SIGBUS)
    std::snprintf(text, sizeof text, "%s at address %#lx", strsignal(signal_number),
                  static_cast<unsigned long>(address));
  else
    std::snprintf(text, sizeof text, "%s", strsignal(signal_number));
  ncp2::tmk::runtime::report_and_stop(ncp2::tmk::Request::Crash, signal_number, address, pc, text);
}

void __ncp2_tmk_fiber_detach() { ncp2::tmk::fiber::f.detached = true; }  // NOLINT

}  // extern "C"
