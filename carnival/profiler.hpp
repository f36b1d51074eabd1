#pragma once
// The CARNIVAL profiler on the emulated machine: receives every PP's and CP's activity spans
// (emu::ActivityProbe) and every completed wait (dsm::Runtime's wait sink), and accumulates
// the profile (node x scope x category x operation), the wait instances with their 9-part
// characterization and cause, and an optional timeline. Exact by construction:
//  - per node, the PP categories sum to the node's finish time; the CP categories to the run's end;
//  - a wait instance spans its t0..t13, minus the time its PP spent meanwhile servicing other
//    nodes by interrupt (that time is Prste, and is taken out of the wait segments it overlaps),
//    so the Wait category of a node equals the sum of its wait instances, and the 9 parts of a
//    wait sum to its duration.
// The accounting runs on a second host thread: the emulation thread only appends each probe
// event (a span, a wait with its stamp chain, an exit) to a batch, and hands full batches over.
// The worker accounts them in order, so the results are the same as inline (and deterministic);
// the emulation is slowed by the appends, not by the accounting (docs/performance.md).
#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "carnival/cp_by_scope.hpp"
#include "carnival/model.hpp"
#include "dsm/runtime.hpp"
#include "dsm/wait_chain.hpp"
#include "emulator/cluster.hpp"
#include "emulator/probe.hpp"

namespace ncp2::carnival {

struct ProfilerOptions {
  std::size_t max_wait_rows = 5'000'000;  // instance rows kept (the summary is always complete)
  std::size_t max_timeline = 1'000'000;   // timeline segments kept (0: no timeline)
  // Account on a second host thread (when the host has more than one core); false: on the
  // emulation thread, batch by batch. The results are identical.
  bool background = true;
};

class Profiler final : public emu::ActivityProbe, public dsm::WaitSink {
 public:
  Profiler(dsm::Runtime& runtime, emu::Cluster& cluster, ProfilerOptions options = {});
  ~Profiler() override;
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Ends the profiled window early; it ends by itself when the last node leaves the exit
  // barrier (the timed region). Later activity is not recorded.
  void stop(emu::TimePoint end);
  // Waits for the events recorded so far to be accounted.
  [[nodiscard]] bool stopped();

  // The run's data (RunInfo's fields other than nodes/virtual time are the caller's). Rethrows
  // an inconsistency found while accounting (std::logic_error).
  [[nodiscard]] RunData finish(RunInfo info);

  void pp_span(emu::NodeId node, emu::TimePoint from, emu::TimePoint to, emu::PpActivity activity,
               const emu::Attribution& attribution, emu::HandlerTag tag) override;
  void cp_span(emu::NodeId node, emu::TimePoint from, emu::TimePoint to) override;
  void on_wait(const dsm::WaitView& wait) override;

 private:
  // ---- the emulation thread's side: record the events, hand batches over
  enum class EventKind : std::uint8_t { PpSpan, CpSpan, Wait, Exit, Stop };
  struct Event {
    std::int64_t from = 0;  // Wait: the index of its record in Batch::waits
    std::int64_t to = 0;
    emu::Attribution attribution;  // CpSpan: its PP's; Wait: the scope it began in
    emu::HandlerTag tag;
    std::uint16_t node = 0;
    emu::PpActivity activity{};
    EventKind kind{};
  };
  // A wait as recorded: its stamps go to Batch::stamps (copying only those in use).
  struct RecordedWait {
    emu::TimePoint start;
    emu::TimePoint end;
    std::uint64_t object = 0;
    std::uint32_t first_stamp = 0;
    std::uint32_t stamps = 0;
    emu::NodeId node{};
    dsm::Operation operation{};
  };
  struct Batch {
    std::array<Event, 4096> events;  // the first `size` (a plain array: no capacity check per event)
    std::size_t size = 0;
    std::vector<RecordedWait> waits;
    // The waits' stamps, the first `stamp_count`: copied as bytes (a vector's insert constructs
    // them one by one, a Stamp not being trivial); a batch is handed over early when they are full.
    std::array<emu::Stamp, 8192> stamps;
    std::size_t stamp_count = 0;
  };
  static constexpr std::size_t kMaxQueuedBatches = 64;  // then the emulation waits for the worker

  [[gnu::always_inline]] void record(const Event& e) {
    batch_->events[batch_->size++] = e;
    if (batch_->size == batch_->events.size()) hand_over();
  }
  void hand_over();  // the current batch to the worker (or accounted here, without a worker)
  void drain();      // hand over, wait until all is accounted, rethrow the worker's error
  void work();       // the worker thread's loop
  void account(const Batch& batch);
  std::unique_ptr<Batch> fresh_batch();

  std::unique_ptr<Batch> batch_;
  bool background_ = false;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Batch>> queue_;   // handed over, not yet accounted
  std::vector<std::unique_ptr<Batch>> spare_;  // accounted, for reuse
  bool busy_ = false;                          // the worker is accounting a batch
  bool quit_ = false;
  std::exception_ptr error_;

  // ---- the worker's side: the accounting (never touches the cluster or the runtime)
  void on_pp_span(std::size_t node, const Event& e);
  void on_cp_span(std::size_t node, const Event& e);
  void on_stop(std::int64_t end_ps);

  struct Cell {
    std::int64_t time_ps = 0;
    std::uint64_t count = 0;
  };
  struct PendingSpan {
    bool valid = false;
    std::int64_t from = 0;
    std::int64_t to = 0;
    emu::PpActivity activity = emu::PpActivity::Compute;
    emu::Attribution attribution;
    emu::HandlerTag tag;
    bool exited = false;
  };
  struct NodeTrack {
    std::int64_t finish_ps = 0;  // end of the last counted PP span
    std::int64_t cp_busy_ps = 0;
    std::int64_t cp_last_end = 0;  // for CPIdle stretches in the timeline
    std::int64_t exit_from = -1;   // a Finished span waiting to be confirmed by later activity
    std::int64_t exit_to = -1;
    std::vector<std::pair<std::int64_t, std::int64_t>> service_in_wait;  // Prste spans in the current wait
    CpByScope cp_scopes;  // the CP's time by the scope the PP was in
  };

  void add(int node, std::uint32_t scope, Category category, std::uint8_t operation, std::int64_t ps);
  void account_pp(std::size_t node, const PendingSpan& span);
  void account_cp(std::size_t node, const PendingSpan& span);
  void add_segment(int node, bool cp, Category category, std::uint8_t operation, std::uint32_t scope,
                   std::int64_t from, std::int64_t to);
  // A wait instance as accounted (add_wait keeps it as a WaitRow).
  struct CompactWait {
    std::int64_t start_ps;
    std::int64_t duration_ps;
    std::array<std::int64_t, kWaitParts> parts;
    std::uint64_t object;
    std::int64_t cause_scope;
    std::uint32_t scope;
    std::int32_t cause_node;
    std::int32_t remote_node;
    std::uint16_t node;
    std::uint8_t operation;
  };
  void account_wait(const RecordedWait& wait, std::span<const emu::Stamp> stamps, std::uint32_t scope);
  // A node left the exit barrier: from then on its PP only counts when servicing others.
  void on_exit(std::size_t node, std::int64_t when_ps);
  void add_wait(const CompactWait& row);
  void mention_scope(std::uint32_t scope);  // in wait_scopes_
  void flush_exit(std::size_t node, std::uint32_t scope);
  void move_profile(RunData& d, std::set<std::uint32_t>& used) const;
  void close_cp_scopes(std::int64_t end_ps);
  void move_waits(RunData& d, std::set<std::uint32_t>& used);  // leaves no rows behind

  dsm::Runtime& runtime_;
  emu::Cluster& cluster_;
  ProfilerOptions options_;
  bool has_cp_;
  bool service_as_interrupted_;  // pp.separate_server: a served request is the program's time, no Prste
  bool stopped_ = false;
  int exit_observer_id_ = 0;
  int exited_count_ = 0;
  std::int64_t end_ps_ = 0;
  std::unordered_map<std::uint64_t, Cell> cells_;  // key: node | scope | category | operation
  // Direct-mapped cache in front of cells_ (its nodes never move): most spans hit a recent cell.
  std::array<std::pair<std::uint64_t, Cell*>, 512> cell_cache_{};
  std::vector<NodeTrack> nodes_;
  std::vector<PendingSpan> pending_pp_;
  std::vector<PendingSpan> pending_cp_;
  std::vector<bool> exited_;
  std::vector<WaitRow> waits_;     // the rows finish() hands out (up to max_wait_rows)
  std::vector<bool> wait_scopes_;  // the scopes those rows mention (their scope, their cause's)
  std::unordered_map<std::uint64_t, WaitSummary> summary_;  // complete even when rows are capped
  std::vector<dsm::WaitSegment> segments_;                  // scratch for fold_wait
  std::uint64_t waits_dropped_ = 0;
  struct CompactSegment {  // converted to Segment (with its operation's name) by finish()
    std::int64_t from;
    std::int64_t to;
    std::uint32_t scope;
    std::uint16_t node;
    Category category;
    std::uint8_t operation;
    bool cp;
  };
  std::vector<CompactSegment> timeline_;
  std::uint64_t timeline_dropped_ = 0;
};

}  // namespace ncp2::carnival
