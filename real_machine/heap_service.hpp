#pragma once
// Node 0's shared heap in a real run: Tmk_malloc and Tmk_free for the whole run (the same address
// is the same datum on every node), node 0's own program calling it directly and the other nodes
// through MallocRequest and FreeRequest. Thread-safe (a mutex of its own): node 0's local thread
// and its service thread both allocate.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "real_machine/transport.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::real {

class HeapService {
 public:
  HeapService(Transport& transport, std::size_t heap_bytes);

  // The address of `bytes` bytes in the program's heap, or 0 and why not.
  std::pair<std::uint64_t, std::string> allocate(std::uint64_t bytes);
  // Frees the block at `address`; false when no block starts there.
  bool free(std::uint64_t address);

  // The service thread: another node's Tmk_malloc or Tmk_free, answered.
  void on_malloc(const Message& m);
  void on_free(const Message& m);

 private:
  Transport& transport_;
  std::mutex mutex_;
  tmk::SharedHeap heap_;
};

}  // namespace ncp2::real
