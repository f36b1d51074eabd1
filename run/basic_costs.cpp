#include "run/basic_costs.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "dsm/process.hpp"
#include "dsm/runtime.hpp"
#include "emulator/cluster.hpp"
#include "emulator/kernel.hpp"
#include "run/workload_names.hpp"
#include "workloads/workload.hpp"

namespace ncp2::run {

namespace {

constexpr int kPaperNodes = 8;  // USENIX'94: 8 DECstations
constexpr int kBarrierRounds = 16;

// One experiment: a fresh idle machine runs `body` on every node; the body stores what it timed.
// `real_node`: the lock experiments' roles are validation/basic_costs.c's, not the papers'.
class Experiment {
 public:
  Experiment(dsm::SystemConfig config, int nodes, bool real_node = false)
      : real_node_(real_node),
        config_(with_nodes(std::move(config), nodes)),
        kernel_(options(config_)),
        cluster_(kernel_, config_),
        dsm_(kernel_, cluster_, config_) {}

  void run(const std::function<void(dsm::Process&, Experiment&)>& body, std::string_view name) {
    dsm_.start([&](dsm::Process& p) { body(p, *this); });
    const emu::RunResult r = kernel_.run();
    if (r.status != emu::RunStatus::Completed)
      throw WorkloadError(
          fmt::format("basic cost '{}': the experiment did not complete: {}", name, r.diagnosis));
  }
  [[nodiscard]] emu::TimePoint now() const { return kernel_.now(); }
  void record(const std::string& name, emu::Duration d) { timed_[name] = d; }
  [[nodiscard]] emu::Duration recorded(const std::string& name) const { return timed_.at(name); }
  [[nodiscard]] double microseconds(const std::string& name) const {
    return static_cast<double>(emu::to_ps(timed_.at(name))) * 1e-6;
  }
  [[nodiscard]] const dsm::SystemConfig& config() const { return config_; }
  [[nodiscard]] bool real_node() const { return real_node_; }

 private:
  static dsm::SystemConfig with_nodes(dsm::SystemConfig c, int nodes) {
    c.machine.nodes = nodes;
    return c;
  }
  static emu::KernelOptions options(const dsm::SystemConfig& c) {
    emu::KernelOptions o;
    o.fiber_stack_bytes = c.emulator.fiber_stack_bytes();
    return o;
  }

  bool real_node_;
  dsm::SystemConfig config_;
  emu::Kernel kernel_;
  emu::Cluster cluster_;
  dsm::Runtime dsm_;
  std::map<std::string, emu::Duration> timed_;
};

// Times `op` on the calling node, on an idle machine: first the node waits long enough for the
// previous barrier's releases (sent one by one by the manager) to be over.
template <class Op>
void time_it(Experiment& e, dsm::Process& p, const std::string& name, Op&& op) {
  p.compute(emu::Duration{std::int64_t{100} * 1000 * 1000 * 1000});  // 100 ms
  const emu::TimePoint start = e.now();
  op();
  e.record(name, e.now() - start);
}

// Lock 1 is managed by node 1 (lock % nodes). first_holder takes it from its manager, which holds
// it (two messages); after a barrier forwarded_to takes it again, and the manager forwards the
// request to the last holder (three messages). The papers' machine: node 2, then node 3; a real
// node's (validation/basic_costs.c, where the nodes from 2 on, then from 3 on, load the host in
// its loaded run): node 0, then node 2.
int first_holder(int nodes, bool real_node) { return real_node ? 0 : nodes >= 3 ? 2 : 0; }
int forwarded_to(int nodes, bool real_node) {
  if (nodes < 3) return -1;
  return real_node ? 2 : nodes >= 4 ? 3 : 0;
}

void locks(dsm::Process& p, Experiment& e) {
  const int first = first_holder(p.nprocs(), e.real_node());
  const int second = forwarded_to(p.nprocs(), e.real_node());
  if (p.id() == first) time_it(e, p, "lock-from-manager", [&] { p.lock_acquire(1); });
  if (p.id() == first) p.lock_release(1);
  p.barrier(0);
  if (p.id() == second) time_it(e, p, "lock-forwarded", [&] { p.lock_acquire(1); });
  if (p.id() == second) p.lock_release(1);
}

// Barriers in a row, timed at the manager after a first one has lined everyone up.
void barriers(dsm::Process& p, Experiment& e) {
  p.barrier(0);
  const emu::TimePoint start = e.now();
  for (int i = 0; i < kBarrierRounds; ++i) p.barrier(0);
  if (p.id() == 0) e.record("barrier", (e.now() - start) / kBarrierRounds);
}

// One page of 32-bit words, homed at node 0. Node 1 misses on it (the page comes from node 0),
// then writes it in four intervals: the first write of each interval twins the page and, from the
// second interval on, first makes the diff of the previous one. What the previous interval changed
// decides the diff: nothing, every word, every other word.
void pages(dsm::Process& p, Experiment& e) {
  const auto words = e.config().memory.page_size / sizeof(std::int32_t);
  auto page = p.alloc<std::int32_t>("page", words);
  auto v = p.view(page);
  p.barrier(0);
  const bool writer = p.id() == 1;
  auto first_write = [&](const std::string& name) {
    time_it(e, p, name, [&] { v.set(0, v.get(0)); });  // the same value: the write itself changes nothing
  };
  if (writer) time_it(e, p, "page-miss", [&] { (void)v.get(0); });
  p.barrier(1);
  if (writer) first_write("write-fault");  // twin only
  p.barrier(2);
  if (writer) {
    first_write("write-fault-after-unchanged");
    for (std::size_t i = 0; i < words; ++i) v.set(i, static_cast<std::int32_t>(i + 1));
  }
  p.barrier(3);
  if (writer) {
    first_write("write-fault-after-changed");
    for (std::size_t i = 0; i < words; i += 2) v.set(i, -static_cast<std::int32_t>(i + 1));
  }
  p.barrier(4);
  if (writer) first_write("write-fault-after-half");
  // diff-miss: node 0 reads a page it held, of which node 1 changed one word (one small diff).
  auto held = p.view(p.alloc<std::int32_t>("held page", words));
  if (p.id() == 0) (void)held.get(0);
  p.barrier(5);
  if (writer) held.set(1, 1);
  p.barrier(6);
  if (p.id() == 0) time_it(e, p, "diff-miss", [&] { (void)held.get(0); });
}

// The experiments basic_costs.c adds for a real node (issue 43): message size, bursts, crossed
// requests, a Tmk call without messages, and requests to a node that computes.
constexpr int kBurst = 8;
constexpr int kLocalPairs = 16;
constexpr std::array<int, 5> kBusySpacingsMs{1, 2, 4, 8, 16};
constexpr int kBusyMarginMs = 8;

emu::Duration milliseconds(int ms) { return emu::Duration{std::int64_t{ms} * 1000 * 1000 * 1000}; }

void real_node_pages(dsm::Process& p, Experiment& e) {
  const auto words = e.config().memory.page_size / sizeof(std::int32_t);
  const auto page = [&](const char* name) { return p.view(p.alloc<std::int32_t>(name, words)); };
  // diff-miss-page: every word of a page node 0 held changed by node 1 (a diff of a whole page).
  auto whole = page("whole-diff page");
  if (p.id() == 0) (void)whole.get(0);
  p.barrier(1);
  if (p.id() == 1)
    for (std::size_t i = 0; i < words; ++i) whole.set(i, static_cast<std::int32_t>(i + 1));
  p.barrier(2);
  if (p.id() == 0) time_it(e, p, "diff-miss-page", [&] { (void)whole.get(0); });
  // diff-miss-crossed: nodes 0 and 1 at once, each a diff from the other.
  std::array views{page("crossed page 0"), page("crossed page 1")};
  if (p.id() <= 1) (void)views[static_cast<std::size_t>(p.id())].get(0);
  p.barrier(3);
  if (p.id() <= 1) views[static_cast<std::size_t>(1 - p.id())].set(1, 1);
  p.barrier(4);
  const emu::TimePoint start = e.now();
  if (p.id() <= 1) (void)views[static_cast<std::size_t>(p.id())].get(0);
  if (p.id() == 0) e.record("diff-miss-crossed", e.now() - start);
  // page-miss-burst: node 1 reads kBurst pages of node 0's in a row.
  auto burst = p.view(p.alloc<std::int32_t>("burst pages", words * kBurst));
  p.barrier(5);
  if (p.id() == 1)
    time_it(e, p, "page-miss-burst", [&] {
      for (std::size_t k = 0; k < kBurst; ++k) (void)burst.get(k * words);
    });
  if (p.id() == 1) e.record("page-miss-burst", e.recorded("page-miss-burst") / kBurst);
  // lock-local: lock 0 (managed by node 0, held) acquired and released without a message.
  p.barrier(6);
  if (p.id() == 0)
    time_it(e, p, "lock-local", [&] {
      for (int i = 0; i < kLocalPairs; ++i) {
        p.lock_acquire(0);
        p.lock_release(0);
      }
    });
  if (p.id() == 0) e.record("lock-local", e.recorded("lock-local") / kLocalPairs);
}

// busy-request-Nms: node 0 manages a barrier, then computes; node 1 reads one of its pages N ms
// later, while it still computes.
void busy_requests(dsm::Process& p, Experiment& e) {
  const auto words = e.config().memory.page_size / sizeof(std::int32_t);
  auto pages = p.view(p.alloc<std::int32_t>("busy pages", words * kBusySpacingsMs.size()));
  for (std::size_t k = 0; k < kBusySpacingsMs.size(); ++k) {
    p.barrier(1);
    const int ms = kBusySpacingsMs[k];
    if (p.id() == 0) p.compute(milliseconds(ms + kBusyMarginMs));
    if (p.id() != 1) continue;
    p.compute(milliseconds(ms));
    const emu::TimePoint start = e.now();
    (void)pages.get(k * words);
    e.record(fmt::format("busy-request-{}ms", ms), e.now() - start);
  }
}

// lock-burst: a lock-heavy program's rhythm (validation/basic_costs.c's constants). Node 0 takes
// kBurstLocks locks of its own ((k+1)*N: managed by node 0, no other experiment's), so it is their
// last holder, then computes through kBurstWindowUs; node 1 computes kBurstLeadMs, then acquires and
// releases them in turn, computing kBurstGapUs between two, while kBurstLastUs of node 0's
// computation is left: the mean per acquire.
constexpr int kBurstLocks = 16;
constexpr int kBurstLeadMs = 2;
constexpr std::int64_t kBurstGapUs = 100;
constexpr std::int64_t kBurstPaceUs = 2000;
constexpr std::int64_t kBurstLastUs = 8000;
constexpr std::int64_t kBurstWindowUs =
    (std::int64_t{1000} * kBurstLeadMs) + (kBurstLocks * (kBurstGapUs + kBurstPaceUs)) + kBurstLastUs;

emu::Duration microseconds(std::int64_t us) { return emu::Duration{us * 1000 * 1000}; }

void lock_burst(dsm::Process& p, Experiment& e) {
  const auto lock = [n = static_cast<unsigned>(p.nprocs())](int k) {
    return static_cast<unsigned>(k + 1) * n;
  };
  if (p.id() == 0)
    for (int k = 0; k < kBurstLocks; ++k) {
      p.lock_acquire(lock(k));
      p.lock_release(lock(k));
    }
  p.barrier(1);
  const emu::TimePoint start = e.now();
  if (p.id() == 0) p.compute(microseconds(kBurstWindowUs));
  if (p.id() != 1) return;
  p.compute(milliseconds(kBurstLeadMs));
  emu::Duration acquiring{0};
  int made = 0;
  for (; made < kBurstLocks && e.now() - start < microseconds(kBurstWindowUs - kBurstLastUs); ++made) {
    if (made > 0) p.compute(microseconds(kBurstGapUs));
    const emu::TimePoint t = e.now();
    p.lock_acquire(lock(made));
    acquiring += e.now() - t;
    p.lock_release(lock(made));
  }
  e.record("lock-burst", acquiring / made);
}

}  // namespace

const std::vector<std::string>& basic_cost_operations() {
  static const std::vector<std::string> names{
      "lock-from-manager", "lock-forwarded",       "barrier", "page-miss", "twin", "diff-unchanged-page",
      "diff-changed-page", "diff-every-other-word"};
  return names;
}

namespace {
struct BasicCostRuns {
  BasicCostRuns(const dsm::SystemConfig& config, const dsm::SystemConfig& pages_config, int nodes,
                bool real_node)
      : lock_run(config, nodes, real_node),
        barrier_run(config, nodes),
        page_run(pages_config, nodes),
        real_node_run(config, nodes),
        busy_run(config, nodes),
        lock_burst_run(config, nodes) {}
  Experiment lock_run;
  Experiment barrier_run;
  Experiment page_run;
  Experiment real_node_run;
  Experiment busy_run;
  Experiment lock_burst_run;
};
// The diffs are timed at the write fault that makes them: with lazy diffs (dsm.lazy_diffs) the
// same diff, at the same cost (Runtime::diff_cost), is made later, when requested.
dsm::SystemConfig eager(dsm::SystemConfig c) {
  c.dsm.lazy_diffs = 0;
  return c;
}
std::unique_ptr<BasicCostRuns> run_experiments(const dsm::SystemConfig& config, int nodes, bool real_node) {
  if (nodes < 2) throw WorkloadError("the basic costs need 2 nodes or more");
  auto r = std::make_unique<BasicCostRuns>(config, eager(config), nodes, real_node);
  r->lock_run.run(locks, "locks");
  r->barrier_run.run(barriers, "barrier");
  r->page_run.run(pages, "pages");
  if (real_node) {
    r->real_node_run.run(real_node_pages, "real-node pages");
    r->busy_run.run(busy_requests, "requests to a computing node");
    r->lock_burst_run.run(lock_burst, "lock requests to a computing node");
  }
  return r;
}
}  // namespace

std::vector<BasicCost> measure_raw_basic_costs(const dsm::SystemConfig& config, int nodes) {
  const auto r = run_experiments(config, nodes, true);
  std::vector<BasicCost> out{{"lock-from-manager",
                              "remote acquire of a free lock held by its manager (2 messages)",
                              r->lock_run.microseconds("lock-from-manager")}};
  if (forwarded_to(nodes, true) >= 0)
    out.push_back({"lock-forwarded", "remote acquire forwarded to the last holder (3 messages)",
                   r->lock_run.microseconds("lock-forwarded")});
  out.push_back({"barrier", fmt::format("one barrier of {} nodes (mean of 16 in a row)", nodes),
                 r->barrier_run.microseconds("barrier")});
  const std::array<std::pair<const char*, const char*>, 6> page_timings{{
      {"page-miss", "remote access miss: one page from its home"},
      {"write-fault", "first write to a page in an interval (trap and twin)"},
      {"write-fault-after-unchanged", "the same, the previous interval's diff made first: page unchanged"},
      {"write-fault-after-changed", "the same: every word changed"},
      {"write-fault-after-half", "the same: every other word changed"},
      {"diff-miss", "access miss on a page held before: one small diff from its writer"},
  }};
  for (const auto& [name, what] : page_timings) out.push_back({name, what, r->page_run.microseconds(name)});
  const std::array<std::pair<const char*, const char*>, 4> real_node_timings{{
      {"diff-miss-page", "access miss on a page held before: a diff of every word from its writer"},
      {"diff-miss-crossed", "two nodes at once, each a small diff from the other (timed at node 0)"},
      {"page-miss-burst", "8 pages in a row from their home (mean per page)"},
      {"lock-local", "acquire and release of a lock the node holds: no message (mean per pair)"},
  }};
  for (const auto& [name, what] : real_node_timings)
    out.push_back({name, what, r->real_node_run.microseconds(name)});
  for (const int ms : kBusySpacingsMs) {
    const std::string name = fmt::format("busy-request-{}ms", ms);
    out.push_back({name, fmt::format("page miss at a node that computes, {} ms after it last served", ms),
                   r->busy_run.microseconds(name)});
  }
  out.push_back({"lock-burst",
                 fmt::format("remote acquire from a node that computes, {} in turn {} us apart (mean)",
                             kBurstLocks, kBurstGapUs),
                 r->lock_burst_run.microseconds("lock-burst")});
  return out;
}

std::vector<BasicCost> measure_basic_costs(const dsm::SystemConfig& config) {
  const auto runs = run_experiments(config, kPaperNodes, false);
  const Experiment& lock_run = runs->lock_run;
  const Experiment& barrier_run = runs->barrier_run;
  const Experiment& page_run = runs->page_run;

  // A write fault is the trap, the diff of the previous interval (if any) and the twin: the twin
  // is the first write fault less the trap, a diff the later write faults less the first.
  const double trap = static_cast<double>(emu::to_ps(page_run.config().dsm.fault_trap)) * 1e-6;
  const double fault = page_run.microseconds("write-fault");
  auto diff = [&](const char* name) { return page_run.microseconds(name) - fault; };
  return {
      {"lock-from-manager", "remote acquire of a free lock held by its manager (2 messages)",
       lock_run.microseconds("lock-from-manager")},
      {"lock-forwarded",
       "remote acquire of a free lock forwarded by its manager to the last holder (3 messages)",
       lock_run.microseconds("lock-forwarded")},
      {"barrier", "one barrier of 8 processors (mean of 16 in a row)", barrier_run.microseconds("barrier")},
      {"page-miss", "remote access miss: one page from another processor",
       page_run.microseconds("page-miss")},
      {"twin", "twin of one page (first write fault less the trap)", fault - trap},
      {"diff-unchanged-page", "diff of a page nothing changed", diff("write-fault-after-unchanged")},
      {"diff-changed-page", "diff of a page every word changed", diff("write-fault-after-changed")},
      {"diff-every-other-word", "diff of a page every other word changed", diff("write-fault-after-half")},
  };
}

}  // namespace ncp2::run
