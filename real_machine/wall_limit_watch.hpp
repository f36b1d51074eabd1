#pragma once
// The host-time limit of a real run (--max-wall, issue 36), both sides of its messages. Node 0's
// service thread watches the clock; at the limit it asks every node where its program is
// (PlaceQuery). A node whose local thread waits in a lock or a barrier answers from its service
// thread (what it waits for, and where it asked); otherwise its local thread answers between two
// requests, or within 50 ms while the program runs its own code (the wait's timeout). With every
// answer in (PlaceReply), or after a grace period, node 0 stops the run as the emulated machines
// do: the partial results kept, marked incomplete, each node's place named. mpirun's --timeout, a
// little later, remains for an agent that hangs outright.
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "real_machine/clock_sync_mpi.hpp"
#include "real_machine/transport.hpp"

namespace ncp2::real {

class WallLimitWatch {
 public:
  // Stops the run, `text` saying why and where each node was.
  using StopRun = std::function<void(const std::string& text)>;
  // `max_wall_s` <= 0: no limit.
  WallLimitWatch(Transport& transport, const RunClock& clock, double max_wall_s, StopRun stop);

  // Node 0's service thread.
  void start(double now_ns);  // the limit counts from here (the service thread's start)
  void look();                // when idle: at the limit, asks every node, then stops the run
  void on_place_reply(const Message& m);

  // Every node's service thread: node 0 asks where the program is. `waiting`: what the local
  // thread waits for while it cannot answer (blocked for a reply), else "": it is asked instead.
  void on_place_query(const Message& m, const std::string& waiting);
  // Every node's local thread: when node 0 asked, answers with `place()`.
  void answer_if_asked(const std::function<std::string()>& place);

 private:
  Transport& transport_;
  const RunClock& clock_;
  double max_wall_s_;
  StopRun stop_;
  double started_ns_ = 0;  // node 0's service thread only
  std::mutex mutex_;
  std::vector<std::optional<std::string>> places_;  // node 0, under mutex_: the replies
  double places_asked_ns_ = 0;                      // node 0, under mutex_: when it asked (0: not yet)
  std::atomic<bool> place_wanted_{false};           // node 0 asked this node's local thread
};

}  // namespace ncp2::real
