#pragma once
// The basic operation costs of a machine, measured on the emulated machine the way the TreadMarks
// papers report theirs (USENIX'94 §5.2): a remote acquire of a free lock (from its manager, and
// forwarded to the last holder), an 8-processor barrier, a remote access miss for one page, the
// twin made at the first write in an interval, and the diff made of a page (unchanged, entirely
// changed, every other word changed). Each is a small program of its own on an idle machine;
// `ncp2 reproduce basic-costs` prints them beside the published values (docs/results.md).
#include <string>
#include <vector>

#include "dsm/config.hpp"
#include "run/workload_names.hpp"

namespace ncp2::run {

struct BasicCost {
  std::string operation;  // "lock-from-manager", "barrier", "page-miss", ...
  std::string what;       // one line: what is timed
  double microseconds = 0;
};

// Runs each experiment on `config` (its node count is set to 8: the papers' machine size).
// Throws WorkloadError when an experiment does not complete.
[[nodiscard]] std::vector<BasicCost> measure_basic_costs(const dsm::SystemConfig& config);

// The experiments' raw timings on `nodes` nodes (at least 2), as a program observes them (what
// validation/basic_costs.c measures on real processes): "lock-from-manager", "lock-forwarded"
// (3 nodes or more), "barrier", "page-miss", "write-fault" (trap and twin), and the write faults
// after a page was left unchanged, entirely changed, every other word changed
// ("write-fault-after-unchanged", "-after-changed", "-after-half": their diff made too). Also a
// real node's (issue 43): "diff-miss-page", "diff-miss-crossed", "page-miss-burst", "lock-local",
// "busy-request-Nms" and "lock-burst" (node 1 acquires 16 locks of node 0's in turn while node 0
// computes: the mean). As validation/basic_costs.c times them: lock 1 (its manager node 1) is
// taken from its manager by node 0, then forwarded to node 2 (3 nodes or more). The nodes that
// time nothing stay idle: validation/basic_costs.c's loaded run, where they load the host, is
// compared with these scaled by one factor (validation/load_factor.hpp), since the model has no
// resource the loaders' traffic would share with the timed nodes.
[[nodiscard]] std::vector<BasicCost> measure_raw_basic_costs(const dsm::SystemConfig& config, int nodes);

// The names measure_basic_costs() returns, in its order.
[[nodiscard]] const std::vector<std::string>& basic_cost_operations();

}  // namespace ncp2::run
