#pragma once
// The agents' messages in a real run, over UCX (docs/real-machine.md, issue 42). Every node has one
// receiver, its service thread, which takes every message that arrives (requests of other nodes
// and replies to its own), and any number of senders. Sends never block: the transport keeps each
// buffer until UCX completes its send, so two service threads sending each other large replies
// cannot deadlock. Between messages the service thread can sleep until one arrives
// (wait_for_traffic: UCX's event fd, no timer, no core). The endpoints to every node are made when
// the transport is (a collective over MPI, which carries the workers' addresses), and each carries
// a request-sized and a page-sized message before the constructor returns, so no message of the
// run pays for a connection or a first use. MPI stays for the launch, the clocks and the results'
// collectives.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
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
  // Sleeps until a message (or other UCX traffic) may have arrived, wake() was called, or
  // `timeout_ms` passed (-1: no limit). Returns at once when there is traffic to take.
  void wait_for_traffic(int timeout_ms);
  // Ends a wait_for_traffic now (any thread).
  void wake();
  // Waits until every queued send completed (the end of the run).
  void drain();
  [[nodiscard]] std::uint64_t messages_sent() const { return sent_; }
  // The nodes whose start-up messages came while the transport started (every other node, or the
  // constructor threw): each pair carried both before the program's first.
  [[nodiscard]] int peers_reached() const { return peers_reached_; }
  [[nodiscard]] std::uint64_t bytes_sent() const { return bytes_; }

 private:
  struct Ucx;
  void start_worker();
  void connect_all(MPI_Comm world);
  void complete_sends();  // with mutex_ held
  void greet_every_peer(MPI_Comm world);

  int rank_ = 0;
  int size_ = 1;
  std::mutex mutex_;
  std::unique_ptr<Ucx> ucx_;  // UCX's handles (transport.cpp keeps ucp.h out of every includer)
  std::deque<std::pair<void*, std::vector<std::byte>>> in_flight_;  // UCX request, buffer
  std::uint64_t sent_ = 0;
  std::uint64_t bytes_ = 0;
  int peers_reached_ = 0;
};

}  // namespace ncp2::real
