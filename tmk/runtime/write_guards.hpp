#pragma once
// The runtime's side of ncp2-cc's guards (tmk/instrument/write_guard_pass.cpp): the table of what
// this node may do to each host page of the shared heap (tmk/fiber_abi.hpp's PageState), the alias
// that guarded accesses add to their addresses, and the faults they ask for.
// - Process runner (start): the table and an always-writable alias of the heap are mappings at
//   fixed addresses; only stores are guarded, loads (and code built without the guards) keep the
//   protections of the heap's own mapping.
// - Fiber runner (start_fiber): every node shares the emulator's address space, so loads are
//   guarded too and the alias moves every guarded access into the running node's copy of the heap;
//   nothing is mapped or protected.
// Internal to libncp2tmk; no C++ library, no allocation after setup, async-signal-safe where a
// signal handler calls it.
#include <cstddef>
#include <cstdint>

#include "tmk/channel.hpp"

namespace ncp2::tmk::guards {

// Maps the alias and the table for a heap of `heap_bytes` at kHeapBase from `heap_fd` (not
// closed), made of emulated pages of `page_bytes`. False, with the reason in `why`, when the program has no
// guards or a mapping failed: the program then runs on protections alone, as it would without the guards.
bool start(int heap_fd, std::uintptr_t heap_base, std::size_t heap_bytes, std::size_t page_bytes,
           const char** why);
// The fiber runner's guards: the program's heap addresses (kHeapBase + offset) reach `heap_copy`
// + offset, loads and stores are checked against `table` (a PageState per 4 KiB host page, kept by
// apply()), nothing is mapped or protected. False: the sizes are not whole host pages, or a
// pointer is null.
bool start_fiber(std::uint8_t* table, std::byte* heap_copy, std::size_t heap_bytes, std::size_t page_bytes);
bool active();

// The channel to the emulator, the snapshot area and the runtime's request function: a guarded
// fault is a request, or (a write to a ReadLocalWrite page, when the emulator takes them) a
// DeferredFault. The request function gets the pc as the program runs it (it translates it for the
// emulator: fiber::program_pc).
using Requester = std::int64_t (*)(Request request, std::uint64_t arg0, std::uint64_t arg1, void* pc);
void connect(Channel* channel, unsigned char* snapshots, Requester request);

// A protection run from the emulator, in host pages: the table learns what the node may do to the
// pages. Under the process runner the heap's mapping also gets them, without write permission
// (guarded stores go through the alias), and mprotect is called only where its protection really
// changes. False: an mprotect failed.
bool apply(std::size_t first_host_page, std::size_t host_pages, Protection protection);

// The faults an access of `size` bytes at `address` needs before it may go on, asked as a guarded
// access asks them (the guards' own path; for the fiber runner's backstop, which knows the pc of
// an unguarded access). Returns when the pages' states allow the access.
void fault(std::uint64_t address, std::uint64_t size, bool write, void* pc);

// A write by code without the guards trapped at `address` (process runner): if the node may write
// the page (its write fault was served for a guarded store), the heap's mapping becomes writable
// there and the write can be retried. False: a real write fault, for the emulator (or an mprotect
// failed).
bool allow_unguarded_write(std::uintptr_t address);

struct Counts {
  std::uint64_t guarded_faults = 0;    // write faults the guards asked the emulator about
  std::uint64_t read_faults = 0;       // read faults the guards asked the emulator about (fiber runner)
  std::uint64_t deferred_faults = 0;   // write faults the guards took at once (DeferredFault)
  std::uint64_t signal_faults = 0;     // access faults reported by a signal (reads, unguarded writes)
  std::uint64_t unguarded_writes = 0;  // traps fixed by allow_unguarded_write
  std::uint64_t mprotects = 0;         // mprotect calls on the heap's mapping
};
Counts& counts();

}  // namespace ncp2::tmk::guards
