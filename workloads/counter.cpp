// counter: every node increments a shared counter `iterations` times inside a lock, computing
// `work_us` between increments. The simplest lock-bound program: each acquire moves the lock (and
// with it the counter's page, by diffs) from the last holder to the next.
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

constexpr std::int64_t kCyclesPerUpdate = 20;  // load, add, store of the shared words

class Counter final : public Instance {
 public:
  Counter(const Params& params, int nodes)
      : iterations_(params.integer("iterations")),
        work_(emu::picoseconds(std::llround(params.real("work_us") * 1e6))),
        lock_(static_cast<std::uint32_t>(params.integer("lock"))),
        sum_ids_(params.flag("sum_ids")),
        nodes_(nodes) {}

  void run(dsm::Process& p) override {
    allocate(p);
    for (std::int64_t i = 0; i < iterations_; ++i) {
      CARNIVAL_SCOPE_KIND(p, "iteration", "loop");
      work(p);
      increment(p);
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    const auto c = p.view(shared_);
    const std::int64_t count = c.get(0);
    const std::int64_t ids = c.get(1);
    const std::int64_t n = nodes_;
    const std::int64_t want_count = n * iterations_;
    const std::int64_t want_ids = sum_ids_ ? iterations_ * n * (n - 1) / 2 : 0;
    if (count != want_count)
      return fail(fmt::format("counter = {}, expected {} ({} nodes x {} iterations)", count, want_count, n,
                              iterations_));
    if (ids != want_ids) return fail(fmt::format("sum of ids = {}, expected {}", ids, want_ids));
    pass(fmt::format("counter = {} = {} nodes x {} iterations{}", count, n, iterations_,
                     sum_ids_ ? fmt::format(", sum of ids = {}", ids) : std::string()));
  }

 private:
  // Collective: word 0 is the counter, word 1 the sum of the incrementing nodes' ids.
  void allocate(dsm::Process& p) { shared_ = p.alloc<std::int64_t>("counter", 2); }

  void work(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "work", "function");
    if (work_ > emu::Duration{0}) p.compute(work_);
  }

  void increment(dsm::Process& p) const {
    CARNIVAL_SCOPE_KIND(p, "increment", "function");
    auto guard = p.lock(lock_);
    const auto c = p.view(shared_);
    c.set(0, c.get(0) + 1);
    if (sum_ids_) c.set(1, c.get(1) + p.id());
    p.compute_cycles(kCyclesPerUpdate);
  }

  std::int64_t iterations_;
  emu::Duration work_;
  std::uint32_t lock_;
  bool sum_ids_;
  int nodes_;
  dsm::SharedArray<std::int64_t> shared_;
};

}  // namespace

Workload counter_workload() {
  Workload w;
  w.name = "counter";
  w.description = "every node increments a shared counter under one lock, computing between increments";
  w.parameters = {
      int_param("iterations", 100, "increments per node", 1, 10'000'000),
      real_param("work_us", 10.0, "computation between two increments, in microseconds", 0.0, 1e6),
      int_param("lock", 0, "the lock protecting the counter (its manager is node lock % nodes)", 0,
                static_cast<std::int64_t>(dsm::kMaxLocks) - 1),
      bool_param("sum_ids", true,
                 "also add each node's id to a second shared word (verified: iterations x sum of ids)"),
  };
  w.presets = {
      {"small", {{"iterations", std::int64_t{20}}, {"work_us", 2.0}}},
      {"paper", {{"iterations", std::int64_t{1000}}, {"work_us", 20.0}}},
  };
  w.make = [](const Params& params, int nodes, std::uint64_t /*seed: no data to draw*/) {
    return std::make_unique<Counter>(params, nodes);
  };
  return w;
}

}  // namespace ncp2::workloads
