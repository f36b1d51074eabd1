#pragma once
// One node of a real run (ncp2-node, started by mpirun): the node's protocol agent. It starts one
// process of the program and serves it through tmk/'s channel exactly as the emulator does, and
// runs every request with the protocol core the emulator runs (lrc::Node, lrc/node.hpp), UCX being
// its transport. Two threads: the local one serves the program's requests (faults, locks,
// barriers) and waits for their replies; the service thread takes every message from the other
// nodes, answers their requests (pages, diffs, lock forwarding, the managers of locks and
// barriers, node 0's heap) and hands replies to the local thread. Like NCP2's protocol
// controller, the agent answers the other nodes without interrupting the program, which keeps
// running on its own core. The core's state is shared by both threads under one mutex.
// The agent owns the parts that each do one job and hands every message to the one it concerns:
// the barriers (BarrierService), node 0's heap (HeapService), the deadlock watch (DeadlockWatch),
// the host-time limit (WallLimitWatch) and the program's profile (ProgramProfile). It keeps what
// works on the core itself: the program's process and requests, the driver's exchanges
// (Exchanges), and serving pages, diffs and locks.
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "lrc/config.hpp"
#include "lrc/driver.hpp"
#include "lrc/history.hpp"
#include "lrc/node.hpp"
#include "lrc/page_directory.hpp"
#include "real_machine/barrier_service.hpp"
#include "real_machine/clock_sync_mpi.hpp"
#include "real_machine/deadlock_watch.hpp"
#include "real_machine/heap_service.hpp"
#include "real_machine/node_record.hpp"
#include "real_machine/program_profile.hpp"
#include "real_machine/transport.hpp"
#include "real_machine/wall_limit_watch.hpp"
#include "tmk/channel.hpp"
#include "tmk/host/channel_server.hpp"
#include "tmk/host/program_sites.hpp"

namespace ncp2::tmk {
class NodeProcess;
class OutputRelay;
}  // namespace ncp2::tmk

namespace ncp2::real {

struct AgentOptions {
  std::string program;
  double max_wall_s = 0;  // node 0 stops the run after this much host time (0: no limit)
  std::vector<std::string> args;
  std::size_t heap_bytes = std::size_t{64} << 20;
  std::size_t page_bytes = 4096;
  std::uint64_t sample_instructions = 0;  // 0: no samples
  std::string output_dir;                 // empty: the program's lines on ours, prefixed "[node N] "
  std::size_t max_segments = 0;           // timeline stretches kept per node and processor
  bool profile = true;                    // false: no profile, no waits (to measure what profiling costs)
  // The protocol's sizes and policies, as the emulated runs of the configuration take them (nodes
  // and page size are the run's; the diffs are made when an interval closes).
  lrc::ProtocolConfig protocol;
};

// Why a run stopped early: a node failed, node 0 found a deadlock, or the host-time limit.
enum class StopKind : std::uint32_t { Failure = 0, Deadlock = 1, Limit = 2 };

class NodeAgent {
 public:
  NodeAgent(Transport& transport, AgentOptions options, const RunClock& clock);
  ~NodeAgent();
  NodeAgent(const NodeAgent&) = delete;
  NodeAgent& operator=(const NodeAgent&) = delete;

  // Starts the service thread and the program, serves the program until it exits and every node
  // passed the exit barrier (or some node failed). Never throws for the program's failures: the
  // record says what happened.
  void run();
  // Ends the service thread (after every node finished run(): a collective's job).
  void stop_service();
  [[nodiscard]] NodeRecord& record() { return record_; }
  [[nodiscard]] bool failed() const { return aborted_.load(); }
  [[nodiscard]] bool deadlocked() const { return stop_kind_.load() == StopKind::Deadlock; }
  [[nodiscard]] const std::string& failure() const { return abort_text_; }

 private:
  class Requests;  // the program's requests, as the channel server hands them (agent_program.cpp)
  // The node's copy of the shared pages (the program's heap, mapped here too), for the core.
  class HeapMemory final : public lrc::PageMemory {
   public:
    HeapMemory(std::span<std::byte> heap, std::size_t page_bytes) : heap_(heap), page_bytes_(page_bytes) {}
    std::span<std::byte> page(lrc::PageId page) override {
      if (page == shown_page_ && shown_ != nullptr) return {shown_, page_bytes_};
      return heap_.subspan(std::size_t{lrc::raw(page)} * page_bytes_, page_bytes_);
    }
    // Until called with null: the page reads as `bytes` (a write fault the program took at once,
    // twinned from the page as it was).
    void show_as(lrc::PageId page, std::byte* bytes) {
      shown_page_ = page;
      shown_ = bytes;
    }

   private:
    std::span<std::byte> heap_;
    std::size_t page_bytes_;
    lrc::PageId shown_page_{};
    std::byte* shown_ = nullptr;
  };

  // Local thread (agent_program.cpp, agent_operations.cpp).
  void serve_program();
  bool handle_request();  // false once the program has exited
  void startup();
  void fault(lrc::PageId page, bool write);
  void lock_acquire(std::uint32_t lock);
  void lock_release(std::uint32_t lock);
  void barrier(std::uint32_t id);
  // The operations' driver's transport (lrc/driver.hpp): messages over UCX, measured time, no costs.
  class Exchanges final : public lrc::Transport {
   public:
    explicit Exchanges(NodeAgent& agent) : a_(agent) {}
    [[nodiscard]] lrc::Operation operation() const override;
    void set_operation(lrc::Operation op) override;
    void charge(lrc::Entry /*entry*/) override {}  // measured, not modelled
    void synchronizing(lrc::Operation /*op*/, std::uint64_t /*object*/, bool /*after*/) override {}
    lrc::CostSink& costs() override { return no_costs_; }
    void fetch_page(lrc::PageId page, lrc::NodeId home) override;
    void fetch_diffs(lrc::PageId page, std::span<const lrc::DiffRequest> requests) override;
    void request_lock(lrc::LockId lock, const lrc::AcquireStep& step) override;
    void grant_lock(lrc::LockId lock, const lrc::LockWaiter& next) override;
    lrc::BarrierOutcome exchange_at_barrier(lrc::BarrierId barrier, std::size_t usage) override;

   private:
    NodeAgent& a_;
    lrc::Operation op_ = lrc::Operation::None;
    lrc::NoCosts no_costs_;
  };
  void fetch_page(lrc::PageId page, lrc::NodeId home);
  void fetch_diffs(lrc::PageId page, std::span<const lrc::DiffRequest> requests);
  void request_lock(lrc::LockId lock, const lrc::AcquireStep& step);
  lrc::BarrierOutcome exchange_at_barrier(std::uint32_t id, std::size_t usage);
  std::pair<std::uint64_t, std::string> malloc_request(std::uint64_t bytes);
  bool free_request(std::uint64_t address);
  void reply_protections();
  [[nodiscard]] tmk::Protection protection(std::uint32_t page) const;  // with mutex_ held
  void replay_deferred_faults(tmk::RequestHandler& h);
  Message await_reply(Tag tag, const std::function<bool(const Message&)>& matches = {});
  [[noreturn]] void fail(const std::string& text);  // this node failed: tell everyone, stop
  // The same, without unwinding (either thread), for any kind of stop.
  void broadcast_failure(const std::string& text, StopKind kind = StopKind::Failure);
  [[nodiscard]] std::string where() const;  // " at prog.c:12 (in f)": the program's current request
  // Where the program is, when node 0 asked (--max-wall: wall_limit_watch.hpp): between two
  // requests, or while the program runs its own code.
  void answer_place_query();
  [[nodiscard]] std::string place() const;  // "in f (prog.c:12), last seen by its agent at ..."

  // Service thread (agent_service.cpp).
  void service_loop();
  void dispatch(Message m);
  void on_page_request(const Message& m);
  [[nodiscard]] const std::byte* untold_write_snapshot(lrc::PageId page);  // with mutex_ held
  void on_diff_request(const Message& m);
  void on_lock_request(const Message& m);
  void on_lock_forward(const Message& m);
  void on_barrier_arrive(const Message& m);
  void on_heap_request(const Message& m);
  void on_place_query(const Message& m);
  void on_abort(const Message& m);
  void stop_program(const std::string& text, StopKind kind = StopKind::Failure);
  void grant(std::uint32_t lock, int to, const lrc::VectorTime& known, double delay_ns);  // with mutex_ held

  [[nodiscard]] double now_ns() const { return static_cast<double>(clock_.now_ns()); }
  // A TSC reading of the program's process on this node's timeline (`fallback` when the clock is
  // not the TSC: the program always reads the TSC).
  [[nodiscard]] double program_ns(std::uint64_t tsc, double fallback) const {
    return clock_.uses_tsc() ? clock_.tsc_to_ns(tsc) : fallback;
  }
  [[nodiscard]] int self() const { return transport_.rank(); }
  [[nodiscard]] int nodes() const { return transport_.size(); }

  Transport& transport_;
  AgentOptions options_;
  const RunClock& clock_;
  std::unique_ptr<tmk::OutputRelay> relay_;
  std::unique_ptr<tmk::NodeProcess> process_;
  std::atomic<pid_t> program_pid_{-1};
  tmk::ProgramSites sites_;  // the program's line tables and scope sites

  // Shared by the two threads, under mutex_: the protocol core's state of this node.
  std::mutex mutex_;
  lrc::History history_;
  lrc::PageDirectory directory_;
  std::unique_ptr<HeapMemory> memory_;
  std::unique_ptr<lrc::Node> lrc_;
  Exchanges exchanges_{*this};
  std::unique_ptr<lrc::Driver> driver_;           // the local thread's; it holds mutex_ around the core
  std::vector<std::byte> served_copy_;            // a page request's copy (capacity reused)
  BarrierService barriers_;                       // its state under mutex_ too
  std::map<std::uint32_t, double> queued_since_;  // when the lock requester queued here asked
  std::condition_variable replies_cv_;
  std::deque<Message> replies_;

  // The services with locks of their own.
  DeadlockWatch deadlock_;
  WallLimitWatch limit_;
  std::unique_ptr<HeapService> heap_;  // node 0

  std::atomic<bool> aborted_{false};
  std::string abort_text_;
  std::atomic<StopKind> stop_kind_{StopKind::Failure};
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> cp_busy_ns_{0};  // the service thread's time serving messages
  std::atomic<int> awaiting_{0};              // the local thread waits for a reply: the service thread spins
  std::atomic<bool> service_asleep_{false};   // the service thread sleeps until traffic (wake it to await)
  std::vector<SegmentRecord> cp_segments_;    // the service thread's own (merged after it ended)
  std::uint64_t cp_segments_dropped_ = 0;
  std::thread service_;

  // Local thread only.
  std::unique_ptr<tmk::ChannelServer> server_;  // the program's channel
  std::vector<std::uint32_t> faulted_;          // the fault's page: its protection is sent again
  std::vector<lrc::PageId> changed_;            // pages whose access changed (buffer reused)
  bool exited_ = false;
  NodeRecord record_;
  ProgramProfile profile_{record_, sites_, options_.profile};
};

}  // namespace ncp2::real
