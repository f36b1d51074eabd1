// barrier: a plain barrier run. Every node computes `work_us` (plus a per-node skew of up to
// `skew_us`) and enters barrier 0, `episodes` times; no shared memory, so every message is a
// barrier arrival or release and the run measures the barrier and the emulator's cost per node
// (bench/scale runs it at up to 16,384 nodes).
// Verification without shared data: each node counts its arrival at episode k on the host (the
// fibers of one run share a thread) and, once released, checks that all nodes had arrived.
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

class Barrier final : public Instance {
 public:
  Barrier(const Params& params, int nodes)
      : episodes_(params.integer("episodes")),
        work_ps_(std::llround(params.real("work_us") * 1e6)),
        skew_ps_(std::llround(params.real("skew_us") * 1e6)),
        nodes_(nodes),
        arrived_(static_cast<std::size_t>(episodes_), 0) {}

  void run(dsm::Process& p) override {
    for (std::int64_t k = 0; k < episodes_; ++k) {
      CARNIVAL_SCOPE_KIND(p, "episode", "loop");
      work(p, k);
      auto& arrived = arrived_[static_cast<std::size_t>(k)];
      ++arrived;
      p.barrier(0);
      if (arrived != nodes_ && early_++ == 0)
        first_early_ = fmt::format("node {} left episode {} when {} of {} nodes had arrived", p.id(), k,
                                   arrived, nodes_);
    }
  }

  void verify(dsm::Process& p) override {
    if (p.id() != 0) return;
    if (early_ != 0) return fail(fmt::format("{} early departure(s); first: {}", early_, first_early_));
    pass(fmt::format("{} nodes passed {} barrier episodes together", nodes_, episodes_));
  }

 private:
  // Node i works work_us + skew_us * ((i + k) mod 8) / 7 in episode k: the last arrival moves.
  void work(dsm::Process& p, std::int64_t k) const {
    CARNIVAL_SCOPE_KIND(p, "work", "function");
    const std::int64_t step = (p.id() + k) % 8;
    const std::int64_t ps = work_ps_ + skew_ps_ * step / 7;
    if (ps > 0) p.compute(emu::picoseconds(ps));
  }

  std::int64_t episodes_;
  std::int64_t work_ps_;
  std::int64_t skew_ps_;
  int nodes_;
  std::vector<int> arrived_;  // [episode]: nodes that arrived at it (host-side, for verification)
  std::int64_t early_ = 0;
  std::string first_early_;
};

}  // namespace

Workload barrier_workload() {
  Workload w;
  w.name = "barrier";
  w.description =
      "a plain barrier run: every node computes, then enters the barrier, episodes times; no shared data";
  w.parameters = {
      int_param("episodes", 10, "barrier episodes (the exit barrier comes on top)", 1, 1'000'000),
      real_param("work_us", 10.0, "computation before each barrier, in microseconds", 0.0, 1e6),
      real_param("skew_us", 5.0, "extra computation of up to this much, varying by node and episode", 0.0,
                 1e6),
  };
  w.presets = {
      {"small", {{"episodes", std::int64_t{4}}, {"work_us", 2.0}}},
      {"paper", {{"episodes", std::int64_t{100}}, {"work_us", 20.0}}},
  };
  w.make = [](const Params& params, int nodes, std::uint64_t /*seed: no data to draw*/) {
    return std::make_unique<Barrier>(params, nodes);
  };
  return w;
}

}  // namespace ncp2::workloads
