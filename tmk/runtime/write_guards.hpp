#pragma once
// The runtime's side of ncp2-cc's write guards (tmk/instrument/write_guard_pass.cpp): the table of
// the host pages this node may write, the always-writable alias of the shared heap that guarded
// stores write through, and the protections of the heap's own mapping, which only loads and code
// built without the guards still use. Internal to libncp2tmk; no C++ library, no allocation after
// setup, async-signal-safe where a signal handler calls it.
#include <cstddef>
#include <cstdint>

#include "tmk/channel.hpp"

namespace ncp2::tmk::guards {

// Maps the alias and the table for a heap of `heap_bytes` at kHeapBase from `heap_fd` (not
// closed), made of emulated pages of `page_bytes`. False, with the reason in `why`, when the program has no
// guards or a mapping failed: the program then runs on protections alone, as it would without the guards.
bool start(int heap_fd, std::uintptr_t heap_base, std::size_t heap_bytes, std::size_t page_bytes,
           const char** why);
bool active();

// The channel to the emulator, the snapshot area and the runtime's request function: a guarded
// write fault is a request, or (a ReadLocalWrite page, when the emulator takes them) a DeferredFault.
using Requester = std::int64_t (*)(Request request, std::uint64_t arg0, std::uint64_t arg1, void* pc);
void connect(Channel* channel, unsigned char* snapshots, Requester request);

// A protection run from the emulator, in host pages: the table learns whether the pages may be
// written; the heap's mapping gets no write permission while the guards are active (guarded stores
// go through the alias), and mprotect is called only where its protection really changes. False:
// an mprotect failed.
bool apply(std::size_t first_host_page, std::size_t host_pages, Protection protection);

// A write by code without the guards trapped at `address`: if the node may write the page (its
// write fault was served for a guarded store), the heap's mapping becomes writable there and the
// write can be retried. False: a real write fault, for the emulator (or an mprotect failed).
bool allow_unguarded_write(std::uintptr_t address);

struct Counts {
  std::uint64_t guarded_faults = 0;    // write faults the guards asked the emulator about
  std::uint64_t deferred_faults = 0;   // write faults the guards took at once (DeferredFault)
  std::uint64_t signal_faults = 0;     // access faults reported by a signal (reads, unguarded writes)
  std::uint64_t unguarded_writes = 0;  // traps fixed by allow_unguarded_write
  std::uint64_t mprotects = 0;         // mprotect calls on the heap's mapping
};
Counts& counts();

}  // namespace ncp2::tmk::guards
