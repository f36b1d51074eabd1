#pragma once
// The barriers' service on a node of a real run. As the barrier manager (the protocol's
// barrier_manager): each episode's arrivals, whose records join this node's history (they are
// known here before this node has seen them), and at the last arrival the release of every node
// with the records it lacks and how long it waited for the last (lrc::BarrierManager decides).
// And Tmk_distribute's records: node 0's go with its next arrival, and the manager hands them to
// every other node with the release. Its state is part of the node's core state, under the
// agent's mutex (the one the history is under).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "lrc/barrier_manager.hpp"
#include "lrc/config.hpp"
#include "lrc/history.hpp"
#include "lrc/page_directory.hpp"
#include "real_machine/clock_sync_mpi.hpp"
#include "real_machine/transport.hpp"

namespace ncp2::real {

class BarrierService {
 public:
  // `core_mutex`: the agent's mutex, under which `history` and this service's state are. Throws
  // when the protocol's barrier manager is not one of the run's nodes.
  BarrierService(Transport& transport, const RunClock& clock, const lrc::ProtocolConfig& protocol,
                 lrc::History& history, const lrc::PageDirectory& directory, std::mutex& core_mutex);

  // The program's Tmk_distribute: `record` goes to the other nodes with the next barrier. With the
  // core mutex held.
  void distribute(std::vector<std::byte> record);
  // This node's arrival at a barrier carries the records distributed since the last one: written
  // to `w`, then forgotten. With the core mutex held.
  void write_distributed(WireWriter& w);

  // The manager's service thread: a node arrives. True when it was the last (everyone released).
  bool on_arrive(const Message& m);

 private:
  using Distributed = std::vector<std::pair<std::vector<std::byte>, std::uint64_t>>;  // bytes, records
  void release_everyone(std::uint32_t id);  // with the core mutex held

  Transport& transport_;
  const RunClock& clock_;
  lrc::History& history_;
  const lrc::PageDirectory& directory_;
  std::mutex& core_mutex_;
  std::unique_ptr<lrc::BarrierManager> manager_;  // on the barrier manager only
  struct Episode {                                // the manager: the current episode's arrivals
    std::vector<double> arrived_ns;
    double last_ns = 0;
    Distributed distributed;  // node 0's, for the others
  } episode_;
  Distributed outgoing_;  // this node's, for its next arrival
};

}  // namespace ncp2::real
