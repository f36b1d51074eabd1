#pragma once
// TreadMarks lazy release consistency on the emulated cluster (SPEC §2).
//
// One Runtime drives all nodes. Workload code runs in each node's PP fiber and talks to it through
// a Process (dsm/process.hpp). Protocol messages travel the machine's real way (emu::Cluster):
// through the CPs' command queues on `ncp2`, through PP interrupts on `treadmarks`.
//
// The protocol's state and decisions are the core's (lrc/node.hpp, shared with real runs); this
// runtime is the emulated transport over it: it turns the core's answers into messages through
// the machine, blocks the PP's fiber until their replies, charges the modelled costs and stamps
// each wait for CARNIVAL. Emulator shortcut, documented in docs/protocol.md: the nodes share one
// interval history (lrc/history.hpp): a node "knows" interval (q, i) when its vector time says so,
// and messages are charged the bytes the records would take on the wire. Page contents and diffs,
// on the other hand, really travel in the messages.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dsm/compute_meter.hpp"
#include "dsm/config.hpp"
#include "dsm/program_checks.hpp"
#include "dsm/race_detector.hpp"
#include "dsm/source_position.hpp"
#include "dsm/types.hpp"
#include "emulator/cluster.hpp"
#include "emulator/kernel.hpp"
#include "lrc/barrier_manager.hpp"
#include "lrc/config.hpp"
#include "lrc/counters.hpp"
#include "lrc/driver.hpp"
#include "lrc/history.hpp"
#include "lrc/page_directory.hpp"

namespace ncp2::dsm {

class Process;

using lrc::Access;

// Counters like TreadMarks' Tmk_stat, per node: the protocol's (the core's, lrc/counters.hpp) and
// the emulated network's.
struct NodeStats : lrc::Counters {
  std::uint64_t messages = 0;  // sent by this node
  std::uint64_t bytes = 0;     // payload + header bytes sent
  std::vector<std::uint64_t> messages_by_purpose = std::vector<std::uint64_t>(kPurposeEnd, 0);
};

// One completed wait of a PP, with the stamp chain from t0 to its resumption. CARNIVAL folds it
// into the categories of the paper's Table 1 (dsm/wait_chain.hpp).
struct WaitRecord {
  NodeId node{};
  Operation operation = Operation::None;
  std::uint64_t object = 0;    // page, lock or barrier id
  std::uint32_t requests = 1;  // requests sent (a diff fetch asks each concurrent writer)
  emu::TimePoint start;
  emu::TimePoint end;
  emu::StampChain chain;
};

// The same wait by reference, valid only during the call: for a sink that copies only what it
// keeps (the profiler), without building a WaitRecord (its chain's copy and zeroing).
struct WaitView {
  NodeId node{};
  Operation operation = Operation::None;
  std::uint64_t object = 0;
  std::uint32_t requests = 1;
  emu::TimePoint start;
  emu::TimePoint end;
  const emu::StampChain& chain;
};

// Receives every completed wait (Runtime::set_wait_sink), before the observers.
class WaitSink {
 public:
  virtual void on_wait(const WaitView& wait) = 0;

 protected:
  WaitSink() = default;
  ~WaitSink() = default;
  WaitSink(const WaitSink&) = default;
  WaitSink& operator=(const WaitSink&) = default;
};

class Runtime {
 public:
  using WaitObserver = std::function<void(const WaitRecord&)>;

  // `config` is the system's (the cluster was built from its machine part); the runtime keeps a copy.
  Runtime(emu::Kernel& kernel, emu::Cluster& cluster, const SystemConfig& config);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Starts one fiber per node running `body`, then the exit barrier (Tmk_exit); then
  // `after_exit` on every node (e.g. node 0 verifies the result through the DSM, outside the
  // timed region).
  void start(const std::function<void(Process&)>& body, const std::function<void(Process&)>& after_exit = {});

  [[nodiscard]] int nodes() const { return static_cast<int>(nodes_.size()); }
  [[nodiscard]] NodeStats stats(NodeId n) const;
  [[nodiscard]] const std::vector<RegionInfo>& regions() const { return regions_; }
  // Virtual time at which node n left the exit barrier (the end of its timed region).
  [[nodiscard]] emu::TimePoint exit_time(NodeId n) const;
  [[nodiscard]] emu::TimePoint timed_end() const;  // latest exit_time over the nodes
  [[nodiscard]] std::uint64_t barrier_episodes() const { return barrier_.episodes(); }
  // The protocol's configuration, as the core takes it (from the system's).
  [[nodiscard]] const lrc::ProtocolConfig& protocol() const { return protocol_; }
  [[nodiscard]] emu::Cluster& cluster() { return cluster_; }
  [[nodiscard]] const SystemConfig& config() const { return config_; }
  [[nodiscard]] emu::Kernel& kernel() { return kernel_; }

  // Observers of completed waits (the profiler, tests); returns an id for remove_wait_observer.
  int add_wait_observer(WaitObserver observer);
  void remove_wait_observer(int id);
  // One sink of completed waits by reference (the profiler; null: none). Cheaper than an observer.
  void set_wait_sink(WaitSink* sink) { wait_sink_ = sink; }
  // Observers of each node's exit from the exit barrier (the end of its timed region).
  using ExitObserver = std::function<void(NodeId node, emu::TimePoint when)>;
  int add_exit_observer(ExitObserver observer);
  void remove_exit_observer(int id);
  // The measured time model (docs/timing.md): with a meter, native computation between DSM entry
  // points is timed on the host and charged; compute() annotations are then ignored. Null (the
  // default): the deterministic model. Set before start(); the meter must outlive the run.
  void set_compute_meter(ComputeMeter* meter) { meter_ = meter; }
  [[nodiscard]] ComputeMeter* compute_meter() const { return meter_; }
  // Where a node is in its program, for diagnoses (a deadlock names the line where a lock's
  // holder acquired it and where each blocked node waits): `site` gives a cheap token for the
  // node's current position (a scope id, a program counter), `describe` turns one into words
  // ("jacobi.c:42 (in relax)"). Without them a diagnosis names no places.
  using SiteOf = std::function<std::uint64_t(NodeId node)>;
  using DescribeSite = std::function<std::string(std::uint64_t site)>;
  void set_sites(SiteOf site, DescribeSite describe) {
    site_of_ = std::move(site);
    describe_site_ = std::move(describe);
  }

  // Memory for the regions allocated from now on: at least `bytes` zeroed bytes of node `node`,
  // living as long as the runtime (a program's shared memory mapped in its node processes, tmk/).
  // Default: the runtime's own zeroed memory.
  using RegionMemory = std::function<std::byte*(NodeId node, std::size_t bytes)>;
  void set_region_memory(RegionMemory memory) { region_memory_ = std::move(memory); }
  // Data-race detection (issue 16, dsm/race_detector.hpp): call before start(). The typed API
  // records its accesses (ArrayView, spans); a program run from outside merges its own into
  // race_detector() before each of its synchronizations. Null when detection is off.
  void enable_race_detection() { checks_.enable_races(); }
  [[nodiscard]] RaceDetector* race_detector() { return checks_.races(); }
  // Stale-span checking (issue 16, dsm/span_checker.hpp): a span (ArrayView::read_span /
  // write_span) used after its node's next lock acquire, lock release or barrier is a DsmError at
  // the node's next DSM entry, naming the line of the use and the line where the span was taken.
  // Call before the first allocation. On from the start when the environment has
  // NCP2_CHECK_SPANS set to anything but 0 or empty (the test suite sets it). Regions whose memory
  // comes from set_region_memory (programs run from outside) are not checked: they have no spans.
  void check_spans() { checks_.enable_spans(!regions_.empty()); }
  [[nodiscard]] bool checking_spans() const { return checks_.checking_spans(); }
  // Line attribution (the profiler's, issue 18): the scope of a source line, for the PP's time in
  // a call the typed API makes at that line (charged computation, page faults, synchronization;
  // dsm::LineScope). Null: lines are not attributed (no profiler).
  using LineScopeOf = std::uint32_t (*)(const SourcePosition& at);
  void attribute_lines(LineScopeOf line_scope) { line_scope_of_ = line_scope; }
  [[nodiscard]] LineScopeOf line_scope_of() const { return line_scope_of_; }
  // How a stale span's report names places (dsm/program_checks.hpp).
  using CodePlaces = ProgramChecks::CodePlaces;
  void set_code_places(CodePlaces places) { checks_.set_code_places(std::move(places)); }
  // Node n's program touched `bytes` bytes at byte `offset` of region `region` (split by page).
  void record_access(NodeId n, std::uint32_t region, std::size_t offset, std::size_t bytes, bool write,
                     AccessSite site);
  // The CARNIVAL scope node n is in (for access sites).
  [[nodiscard]] std::uint32_t scope_of(NodeId n) const;
  // Records which pages change access on node n (take_access_changes hands them over, each
  // possibly several times; the current access is region_access's).
  void track_access_changes(NodeId n);
  // Swaps them into `out` (whose capacity the runtime reuses).
  void take_access_changes(NodeId n, std::vector<PageId>& out);

  // ---- used by Process (in the node's own fiber)
  std::uint32_t allocate(NodeId n, std::string_view name, std::size_t count, std::size_t element_size);
  std::byte* region_data(NodeId n, std::uint32_t region);
  const std::uint8_t* region_access(NodeId n, std::uint32_t region);
  void fault(NodeId n, std::uint32_t region, std::uint32_t local_page, Access wanted);
  // Whether a write fault of node n on the page would involve nothing but the node's own state: it
  // holds the page valid for reading, so the fault sends nothing and only reads the page (to twin
  // it, and to diff an earlier interval's twin): tmk/'s deferred write faults replay it later with
  // the page's bytes of then (fault_taken_at_once).
  [[nodiscard]] bool write_fault_is_local(NodeId n, std::uint32_t region, std::uint32_t local_page) const;
  // A write fault node n took at once (write_fault_is_local), replayed. Under the measured time
  // model the node's process timed it inside its computation, as a real run counts it, so the
  // model charges nothing more for it (no trap, no twin); otherwise as fault() charges it.
  void fault_taken_at_once(NodeId n, std::uint32_t region, std::uint32_t local_page);
  // Until called again with null, everything the runtime reads or writes of node n's page (twins,
  // diffs, page requests served) uses `bytes` instead of the node's memory: tmk/'s deferred write
  // faults show a page as it was when the fault was taken, until the fault is replayed.
  void show_page_as(NodeId n, std::uint32_t region, std::uint32_t local_page, std::byte* bytes);
  // Checking spans: node n takes a span of `bytes` bytes at byte `offset` of `region`, written at
  // file:line; returns where the region starts for the node's spans until its next synchronization.
  std::byte* take_span(NodeId n, std::uint32_t region, std::size_t offset, std::size_t bytes,
                       const char* file, int line);
  [[noreturn]] void out_of_range(NodeId n, std::uint32_t region, std::size_t index, std::size_t count) const;
  void lock_acquire(NodeId n, LockId lock);
  void lock_release(NodeId n, LockId lock);
  void barrier(NodeId n, BarrierId barrier);
  void compute(NodeId n, emu::Duration d);
  // The measured model's time of a node that runs in another process and times itself
  // (ComputeMeter::set_external): charged as given, the meter's own clock not consulted.
  void compute_external(NodeId n, emu::Duration d);
  // The run's limits (--max-virtual-time, --max-wall): `check` throws when one is reached. Called
  // at every computation (a node that computes forever without a DSM call moves the clock without
  // returning to the kernel's loop) and by a program's driver while it waits for its process.
  void set_limit_check(std::function<void()> check) { limit_check_ = std::move(check); }
  void check_limits() const {
    if (limit_check_) [[unlikely]]
      limit_check_();
  }

 private:
  struct NodeState;
  class NodeMemory;
  class Costs;

  // One node's side of the operations' driver (lrc/driver.hpp): the emulated machine as its
  // transport (node_transport.cpp, and the exchanges in page_faults.cpp, locks.cpp, barriers.cpp).
  class NodeTransport;

  // fiber side
  NodeState& self(NodeId n);
  void fetch_page(NodeState& ns, PageId page, NodeId home);
  void fetch_diffs(NodeState& ns, PageId page, std::span<const lrc::DiffRequest> requests);
  void request_lock(NodeState& ns, LockId lock, const lrc::AcquireStep& step);
  void grant_queued(NodeState& ns, LockId lock, const lrc::LockWaiter& next);
  lrc::BarrierOutcome exchange_at_barrier(NodeState& ns, BarrierId barrier, std::size_t usage);
  // The LOCAL_* command the PP posts for a request on ncp2 (resolved once, not per request).
  enum class LocalCommand { PageRequest, DiffRequest, SendMessage };
  void send_request(NodeState& ns, emu::Message* m, LocalCommand local_command);
  void wait_until_done(NodeState& ns, Operation op, std::uint64_t object);
  static std::string describe_wait(const void* node_state);

  // handler side (a CP command on ncp2, a PP interrupt handler on treadmarks)
  void on_message(emu::WorkContext& ctx, emu::Message* m);
  void serve_page_request(emu::WorkContext& ctx, emu::Message* m);
  void receive_page(emu::WorkContext& ctx, emu::Message* m);
  void serve_diff_request(emu::WorkContext& ctx, emu::Message* m);
  void receive_diffs(emu::WorkContext& ctx, emu::Message* m);
  void on_lock_request(emu::WorkContext& ctx, emu::Message* m);
  void grant_lock(emu::WorkContext* ctx, NodeState& holder, NodeId to, const VectorTime& known,
                  emu::Message* request);
  void receive_grant(emu::WorkContext& ctx, emu::Message* m);
  void on_barrier_arrival(emu::WorkContext& ctx, emu::Message* m);
  void record_arrival(emu::WorkContext* ctx, NodeId from, BarrierId barrier, const VectorTime& vt,
                      std::size_t usage, emu::Message* m);
  void release_barrier(emu::WorkContext* ctx);
  void receive_release(emu::WorkContext& ctx, emu::Message* m);
  void finish_wait(emu::WorkContext& ctx, NodeState& ns, emu::Message* reply);

  // shared helpers
  // The PP's software cost of a diff of `words` changed words in `runs` runs (treadmarks).
  [[nodiscard]] emu::Duration diff_cost(std::size_t words, std::size_t runs) const;
  [[nodiscard]] bool lazy_diffs() const { return config_.dsm.lazy_diffs != 0 && !cluster_.has_cp(); }
  emu::Message* new_message(NodeId from, NodeId to, std::uint16_t purpose, std::size_t payload);
  void count_send(NodeId from, const emu::Message* m);
  void send_from_handler(emu::WorkContext& ctx, emu::Message* m);
  void send_from_fiber(NodeState& ns, emu::Message* m);
  [[nodiscard]] PageId page_of(std::uint32_t region, std::uint32_t local_page) const {
    return PageId{directory_.regions().at(region).first_page + local_page};
  }
  [[nodiscard]] const RegionInfo& region_of(PageId page) const {
    return regions_[directory_.region_of(page)];
  }
  void emit_wait(NodeState& ns);

  RegionMemory region_memory_;
  SiteOf site_of_;
  DescribeSite describe_site_;
  [[nodiscard]] std::uint64_t current_site(NodeId n) const { return site_of_ ? site_of_(n) : 0; }
  [[nodiscard]] std::string where(std::uint64_t site) const;
  [[nodiscard]] std::string describe_lock_wait(const NodeState& ns) const;
  [[nodiscard]] std::string describe_barrier_wait(const NodeState& ns) const;
  class MeasuredEntry;  // measured time model: charges a stretch at a DSM entry, resumes at its exit
  ComputeMeter* meter_ = nullptr;
  std::function<void()> limit_check_;
  LineScopeOf line_scope_of_ = nullptr;
  emu::Kernel& kernel_;
  emu::Cluster& cluster_;
  const SystemConfig config_;
  const lrc::ProtocolConfig protocol_;
  std::size_t page_size_;
  int page_shift_ = 0;
  // The emulator's nodes share one interval history and one page directory (every node decides
  // the same from what it has seen: kept once).
  lrc::History history_;
  lrc::PageDirectory directory_;
  std::vector<std::unique_ptr<NodeState>> nodes_;
  std::vector<RegionInfo> regions_;
  // What the emulator checks of the program itself (races, stale spans), over regions_.
  ProgramChecks checks_;
  lrc::BarrierManager barrier_;                 // at protocol_.barrier_manager
  std::vector<emu::Message*> barrier_waiting_;  // arrival messages, reused for the releases
  std::vector<std::pair<int, WaitObserver>> wait_observers_;
  WaitSink* wait_sink_ = nullptr;
  emu::CommandKind local_page_request_{};
  emu::CommandKind local_diff_request_{};
  emu::CommandKind send_message_{};
  std::vector<std::pair<int, ExitObserver>> exit_observers_;
  int next_observer_id_ = 1;
};

}  // namespace ncp2::dsm
