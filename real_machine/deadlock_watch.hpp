#pragma once
// Deadlock detection in a real run, both sides of its messages. Every node tells node 0 when its
// local thread starts waiting for a lock or a barrier and when it stops (Blocked), and keeps where
// it acquired each lock it holds. When node 0 sees every node waiting, and nothing changes for a
// grace period (a grant may still be in flight: the releaser sent it and then waited itself), it
// asks every node which locks it holds and where it acquired them (HeldQuery, HeldReply), and
// stops the run with the emulator's kind of diagnosis: who waits for what, held by whom, taken
// where. Thread-safe (a mutex of its own): the local thread reports, the service thread answers
// and watches.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "real_machine/clock_sync_mpi.hpp"
#include "real_machine/transport.hpp"

namespace ncp2::real {

// What a node's local thread waits for (Blocked carries the value).
enum class WaitKind : std::uint32_t { Running = 0, Lock = 1, Barrier = 2 };

class DeadlockWatch {
 public:
  // Stops the run, the diagnosis its text (the watch's only way to act on what it found).
  using StopRun = std::function<void(const std::string& diagnosis)>;
  DeadlockWatch(Transport& transport, const RunClock& clock, StopRun stop);

  // Every node's local thread: what it waits for from now on (`where`: the program's call).
  void report_waiting(WaitKind kind, std::uint32_t object, const std::string& where);
  void report_running() { report_waiting(WaitKind::Running, 0, {}); }
  void acquired(std::uint32_t lock, const std::string& where);
  void released(std::uint32_t lock);
  // "waits for lock 2 at prog.c:27", "has exited and waits for the others" ("" while running).
  [[nodiscard]] std::string local_wait() const;

  // Every node's service thread: node 0 asks which locks this node holds.
  void on_held_query(const Message& m);

  // Node 0's service thread.
  void on_blocked(const Message& m);
  void on_held_reply(const Message& m);
  void barrier_released();  // every node goes on: none waits any more
  void look();              // when idle: stops the run once every node has waited long enough

 private:
  struct Waiting {
    WaitKind kind = WaitKind::Running;
    std::uint32_t object = 0;
    std::string where;
  };
  using HeldLocks = std::vector<std::pair<std::uint32_t, std::string>>;  // lock, where acquired
  void waits_changed();  // with mutex_ held: the all-waiting time starts again, a query under way is void
  [[nodiscard]] std::string diagnosis() const;  // with mutex_ held, every reply in

  Transport& transport_;
  const RunClock& clock_;
  StopRun stop_;
  mutable std::mutex mutex_;
  // This node.
  std::string local_wait_;
  std::map<std::uint32_t, std::string> held_where_;
  // Node 0.
  std::vector<Waiting> waiting_;  // what each node waits for
  double all_waiting_since_ = 0;
  std::vector<std::optional<HeldLocks>> held_;  // the replies (empty: not asked)
};

}  // namespace ncp2::real
