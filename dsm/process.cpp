// Process: the workload API (dsm/process.hpp); computation charged from operation counts.
#include "dsm/runtime.hpp"

#include <cmath>
#include "dsm/process.hpp"

namespace ncp2::dsm {

void Process::compute_cycles(std::int64_t cycles, SourcePosition at) {
  compute(emu::cycles_at(cycles, runtime_->cluster().config().pp.clock_mhz), at);
}

double Process::cycles_of(const OpCounts& ops) const {
  const CostConfig& cost = runtime_->config().cost;
  return ops.flops * cost.flop + ops.int_ops * cost.int_op + ops.loads * cost.load + ops.stores * cost.store +
         ops.branches * cost.branch;
}

void Process::charge(const OpCounts& ops, SourcePosition at) {
  // Rounded to whole cycles so the same counts always give the same time, whatever the grouping.
  compute_cycles(std::llround(cycles_of(ops)), at);
}

}  // namespace ncp2::dsm
