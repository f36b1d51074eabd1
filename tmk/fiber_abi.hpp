#pragma once
// The fiber runner's contract between the emulator and a copy of a user's program (issue 45,
// docs/fiber-runner.md). ncp2-cc links the program a second time as a shared object and embeds it
// in the executable (section kFiberSection); `ncp2 run --runner fiber` loads one copy of that
// object per node into the emulator's process (each copy has its own globals, thread-locals and
// runtime state) and runs the node's program on a fiber of its own. The program talks to the
// emulator through the same Channel as under the process runner (tmk/channel.hpp): a request is
// posted in the node's channel and the turn handed over by a call to `hand_off` (a fiber switch)
// instead of a futex. Shared memory is the node's own copy of the heap, reached through ncp2-cc's
// guards: the program's addresses stay kHeapBase + offset, the guards add `alias` to them.
// Included by the runtime (no library dependencies) and by the emulator's driver.
#include <cstddef>
#include <cstdint>

#include "tmk/channel.hpp"

namespace ncp2::tmk {

// The ELF section of an executable built by ncp2-cc that holds the program's shared object.
inline constexpr const char* kFiberSection = ".ncp2_fiber";
inline constexpr std::uint32_t kFiberAbiVersion = 1;

// Per 4 KiB host page of the shared heap, what the node may do without asking the emulator; the
// guards test it before every store (`!= Write`: ask the runtime) and, under the fiber runner,
// before every load (`== None`: ask the runtime) that may reach the heap
// (tmk/runtime/write_guards.hpp). ReadLocalWrite is Protection::ReadLocalWrite: readable, and a
// write fault the runtime may take at once (DeferredFault). The process runner's loads are checked
// by page protection instead, so there the table only has to tell Write from the rest.
enum class PageState : std::uint8_t { None = 0, Write = 1, ReadLocalWrite = 2, Read = 3 };

struct FiberAttach {
  std::uint32_t version = kFiberAbiVersion;
  std::uint32_t layout_bytes = sizeof(FiberAttach);
  std::uint32_t channel_layout_bytes = sizeof(Channel);
  std::uint32_t reserved = 0;
  Channel* channel = nullptr;     // followed by the bulk area and the snapshot area, as in kChannelMapBytes
  std::byte* heap = nullptr;      // the node's copy of the shared heap: program address kHeapBase is heap[0]
  std::uint8_t* table = nullptr;  // PageState per 4 KiB host page of the heap
  // The node's access log when the run detects data races (AccessLogLayout; null: none).
  std::byte* access_log = nullptr;
  // Hands the turn to the emulator after a request was posted in the channel; returns when the
  // emulator replied. Never returns after an Exit or a Crash request.
  void (*hand_off)(void* host) = nullptr;
  // The node's program ended without a request: before its Tmk_startup with exit `status` (as a
  // process of the process runner may exit before its first request), or killed by signal
  // -`status` when negative (raise(SIGKILL)). Never returns.
  void (*finish)(void* host, int status) = nullptr;
  void* host = nullptr;
};

// Exported by the program's shared object (the runtime, tmk/runtime/fiber_mode.cpp), called by
// the emulator on the node's fiber: runs the program's main(argc, argv) under the emulator and
// ends with an Exit request (or a Crash). Never returns.
using FiberMain = void (*)(const FiberAttach* attach, int argc, char** argv);
inline constexpr const char* kFiberMainSymbol = "__ncp2_tmk_fiber_main";

// Exported too: a signal the emulator caught while the node's program ran (a wild pointer, an
// abort from inside a library), reported as the process runner's signal handler would.
using FiberSignal = void (*)(int signal_number, std::uint64_t address, void* pc);
inline constexpr const char* kFiberSignalSymbol = "__ncp2_tmk_fiber_signal";

// Exported too: the emulator's backstop for code without the guards (a libc function given a
// pointer into shared memory) found an access the node's PageState does not allow; the runtime
// asks the emulator for the page as a guarded access would (the node's fiber is switched out
// meanwhile). Returns when the page's state allows the access.
using FiberFault = void (*)(std::uint64_t address, int write, void* pc);
inline constexpr const char* kFiberFaultSymbol = "__ncp2_tmk_fiber_fault";

// Exported too: the emulator is about to unload the copy (dlclose), whose program may not have
// ended (a failed run). Code the unloading still runs (destructors) finds no emulator: requests
// return at once and change nothing.
using FiberDetach = void (*)();
inline constexpr const char* kFiberDetachSymbol = "__ncp2_tmk_fiber_detach";

// Exported data: {kFiberAbiVersion, sizeof(FiberAttach), sizeof(Channel)} of the runtime the copy
// was built with; the emulator refuses a copy built against another layout.
inline constexpr const char* kFiberAbiSymbol = "__ncp2_tmk_fiber_abi";

}  // namespace ncp2::tmk
