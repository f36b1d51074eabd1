#pragma once
// MPI as the transport of a real run. Every node has one receiver, its service thread, which
// takes every message that arrives (requests of other nodes and replies to its own), and any
// number of senders. Sends never block: each is an MPI_Isend whose buffer the transport keeps
// until MPI completes it, so two service threads sending each other large replies cannot
// deadlock. The run's traffic has a communicator of its own (dup'ed), apart from the clock
// synchronization's and the results' collectives.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "real_machine/wire.hpp"

namespace ncp2::real {

struct Message {
  int from = 0;
  Tag tag = Tag::Abort;
  std::vector<std::byte> body;
};

class Transport {
 public:
  explicit Transport(MPI_Comm world);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  // Queues `body` for `to` (this node included). Thread-safe.
  void send(int to, Tag tag, std::vector<std::byte> body);
  // The next message that has arrived, if any (the service thread only). Also completes sends.
  std::optional<Message> poll();
  // Waits until every queued send completed (the end of the run).
  void drain();
  [[nodiscard]] std::uint64_t messages_sent() const { return sent_; }
  [[nodiscard]] std::uint64_t bytes_sent() const { return bytes_; }

 private:
  void complete_sends();  // with mutex_ held

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::mutex mutex_;
  std::deque<std::pair<MPI_Request, std::vector<std::byte>>> in_flight_;
  std::uint64_t sent_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace ncp2::real
