#pragma once
// A cluster + DSM runtime for tests: build, run a body on every node, read the counters.
#include <functional>
#include <utility>
#include <vector>

#include "dsm/process.hpp"
#include "dsm/runtime.hpp"
#include "dsm/wait_chain.hpp"
#include "emulator/cluster.hpp"

namespace ncp2::dsm::testing {

inline dsm::SystemConfig machine(emu::MachineKind kind, int nodes) {
  dsm::SystemConfig c = dsm::default_config(kind);
  c.machine.nodes = nodes;
  return c;
}

struct Harness {
  explicit Harness(dsm::SystemConfig config)
      : cfg(std::move(config)), kernel(options()), cluster(kernel, cfg), dsm(kernel, cluster, cfg) {
    dsm.add_wait_observer([this](const WaitRecord& w) { waits.push_back(w); });
  }
  emu::KernelOptions options() const {
    emu::KernelOptions o;
    o.fiber_stack_bytes = cfg.emulator.fiber_stack_bytes();
    return o;
  }
  emu::RunResult run(const std::function<void(Process&)>& body,
                     const std::function<void(Process&)>& after = {}) {
    dsm.start(body, after);
    return kernel.run();
  }
  std::uint64_t total(std::uint16_t purpose) const {
    std::uint64_t sum = 0;
    for (int n = 0; n < dsm.nodes(); ++n) sum += dsm.stats(emu::node_id(n)).messages_by_purpose[purpose];
    return sum;
  }
  template <class F>
  std::uint64_t total_of(F field) const {
    std::uint64_t sum = 0;
    for (int n = 0; n < dsm.nodes(); ++n) sum += field(dsm.stats(emu::node_id(n)));
    return sum;
  }

  dsm::SystemConfig cfg;
  emu::Kernel kernel;
  emu::Cluster cluster;
  Runtime dsm;
  std::vector<WaitRecord> waits;
};

}  // namespace ncp2::dsm::testing
