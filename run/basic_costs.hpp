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

namespace ncp2::workloads {

struct BasicCost {
  std::string operation;  // "lock-from-manager", "barrier", "page-miss", ...
  std::string what;       // one line: what is timed
  double microseconds = 0;
};

// Runs each experiment on `config` (its node count is set to 8: the papers' machine size).
// Throws WorkloadError when an experiment does not complete.
[[nodiscard]] std::vector<BasicCost> measure_basic_costs(const dsm::SystemConfig& config);

// The names measure_basic_costs() returns, in its order.
[[nodiscard]] const std::vector<std::string>& basic_cost_operations();

}  // namespace ncp2::workloads
