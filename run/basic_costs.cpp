#include "run/basic_costs.hpp"

#include <cstdint>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "dsm/process.hpp"
#include "dsm/runtime.hpp"
#include "emulator/cluster.hpp"
#include "emulator/kernel.hpp"
#include "workloads/workload.hpp"

namespace ncp2::workloads {

namespace {

constexpr int kPaperNodes = 8;  // USENIX'94: 8 DECstations
constexpr int kBarrierRounds = 16;

// One experiment: a fresh idle machine runs `body` on every node; the body stores what it timed.
class Experiment {
 public:
  explicit Experiment(dsm::SystemConfig config)
      : config_(with_paper_nodes(std::move(config))),
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
  [[nodiscard]] double microseconds(const std::string& name) const {
    return static_cast<double>(emu::to_ps(timed_.at(name))) * 1e-6;
  }
  [[nodiscard]] const dsm::SystemConfig& config() const { return config_; }

 private:
  static dsm::SystemConfig with_paper_nodes(dsm::SystemConfig c) {
    c.machine.nodes = kPaperNodes;
    return c;
  }
  static emu::KernelOptions options(const dsm::SystemConfig& c) {
    emu::KernelOptions o;
    o.fiber_stack_bytes = c.emulator.fiber_stack_bytes();
    return o;
  }

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

// Lock 1 is managed by node 1 (lock % nodes). Node 2 takes it from its manager, which holds it
// (two messages); after a barrier node 3 takes it again, and the manager forwards the request to
// node 2, its last holder (three messages).
void locks(dsm::Process& p, Experiment& e) {
  if (p.id() == 2) time_it(e, p, "lock-from-manager", [&] { p.lock_acquire(1); });
  if (p.id() == 2) p.lock_release(1);
  p.barrier(0);
  if (p.id() == 3) time_it(e, p, "lock-forwarded", [&] { p.lock_acquire(1); });
  if (p.id() == 3) p.lock_release(1);
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
    first_write("write-fault-after-all-changed");
    for (std::size_t i = 0; i < words; i += 2) v.set(i, -static_cast<std::int32_t>(i + 1));
  }
  p.barrier(4);
  if (writer) first_write("write-fault-after-half-changed");
}

}  // namespace

const std::vector<std::string>& basic_cost_operations() {
  static const std::vector<std::string> names{
      "lock-from-manager", "lock-forwarded",       "barrier", "page-miss", "twin", "diff-unchanged-page",
      "diff-changed-page", "diff-every-other-word"};
  return names;
}

std::vector<BasicCost> measure_basic_costs(const dsm::SystemConfig& config) {
  Experiment lock_run(config);
  lock_run.run(locks, "locks");
  Experiment barrier_run(config);
  barrier_run.run(barriers, "barrier");
  // The diffs are timed at the write fault that makes them: with lazy diffs (dsm.lazy_diffs) the
  // same diff, at the same cost (Runtime::diff_cost), is made later, when requested.
  dsm::SystemConfig eager = config;
  eager.dsm.lazy_diffs = 0;
  Experiment page_run(eager);
  page_run.run(pages, "pages");

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
      {"diff-changed-page", "diff of a page every word changed", diff("write-fault-after-all-changed")},
      {"diff-every-other-word", "diff of a page every other word changed",
       diff("write-fault-after-half-changed")},
  };
}

}  // namespace ncp2::workloads
