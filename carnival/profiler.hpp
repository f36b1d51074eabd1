#pragma once
// The CARNIVAL profiler on the emulated machine: receives every PP's and CP's activity spans
// (emu::ActivityProbe) and every completed wait (dsm::Runtime's wait observer), and accumulates
// the profile (node x scope x category x operation), the wait instances with their 9-part
// characterization and cause, and an optional timeline. Exact by construction:
//  - per node, the PP categories sum to the node's finish time; the CP categories to the run's end;
//  - a wait instance spans its t0..t13, minus the time its PP spent meanwhile servicing other
//    nodes by interrupt (that time is Prste, and is taken out of the wait segments it overlaps),
//    so the Wait category of a node equals the sum of its wait instances, and the 9 parts of a
//    wait sum to its duration.
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "carnival/model.hpp"
#include "dsm/runtime.hpp"
#include "dsm/wait_chain.hpp"
#include "emulator/cluster.hpp"
#include "emulator/probe.hpp"

namespace ncp2::carnival {

struct ProfilerOptions {
  std::size_t max_wait_rows = 5'000'000;   // instance rows kept (the summary is always complete)
  std::size_t max_timeline = 1'000'000;    // timeline segments kept (0: no timeline)
};

class Profiler final : public emu::ActivityProbe {
 public:
  Profiler(dsm::Runtime& runtime, emu::Cluster& cluster, ProfilerOptions options = {});
  ~Profiler() override;
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Ends the profiled window early; it ends by itself when the last node leaves the exit
  // barrier (the timed region). Later activity is not recorded.
  void stop(emu::TimePoint end);
  [[nodiscard]] bool stopped() const { return stopped_; }

  // The run's data (RunInfo's fields other than nodes/virtual time are the caller's).
  [[nodiscard]] RunData finish(RunInfo info) const;

  void pp_span(emu::NodeId node, emu::TimePoint from, emu::TimePoint to, emu::PpActivity activity,
               const emu::Attribution& attribution, emu::HandlerTag tag) override;
  void cp_span(emu::NodeId node, emu::TimePoint from, emu::TimePoint to) override;

 private:
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
    std::int64_t finish_ps = 0;        // end of the last counted PP span
    std::int64_t cp_busy_ps = 0;
    std::int64_t cp_last_end = 0;      // for CPIdle stretches in the timeline
    std::int64_t exit_from = -1;       // a Finished span waiting to be confirmed by later activity
    std::int64_t exit_to = -1;
    std::vector<std::pair<std::int64_t, std::int64_t>> service_in_wait;  // Prste spans in the current wait
  };

  void add(int node, std::uint32_t scope, Category category, std::uint8_t operation, std::int64_t ps);
  void account_pp(std::size_t node, const PendingSpan& span);
  void account_cp(std::size_t node, const PendingSpan& span);
  void add_segment(int node, bool cp, Category category, std::uint8_t operation, std::uint32_t scope,
                   std::int64_t from, std::int64_t to);
  // Wait instances as kept during the run (names are added by finish()).
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
  void on_wait(const dsm::WaitRecord& wait);
  // A node left the exit barrier: from then on its PP only counts when servicing others.
  void on_exit(emu::NodeId node, emu::TimePoint when);
  void add_wait(const CompactWait& row);
  void flush_exit(std::size_t node, std::uint32_t scope);

  dsm::Runtime& runtime_;
  emu::Cluster& cluster_;
  ProfilerOptions options_;
  bool has_cp_;
  bool stopped_ = false;
  int observer_id_ = 0;
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
  std::vector<CompactWait> waits_;
  std::unordered_map<std::uint64_t, WaitSummary> summary_;  // complete even when rows are capped
  std::vector<dsm::WaitSegment> segments_;                 // scratch for fold_wait
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
