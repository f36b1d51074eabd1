// Garbage collection on the emulated machine, at a barrier whose release asks for it (the core
// decides: lrc/node_gc.cpp): stale copies are brought up to date by fetching their diffs or
// dropped, the nodes meet at a second barrier, and every twin, diff and notice is discarded.
#include "dsm/runtime.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

void Runtime::run_gc(NodeState& ns) {
  OperationScope op(*ns.pp, Operation::GarbageCollection);
  ns.lrc.begin_gc();
  for (std::uint32_t p = 0; p < directory_.pages(); ++p) {
    const PageId page{p};
    if (ns.lrc.gc_step(page) != lrc::GcStep::Validate) continue;
    fetch_diffs(ns, page);
    ns.lrc.gc_validated(page);
  }
  barrier_episode(ns, BarrierId{kGcBarrier}, false);
  Costs costs(*this, ns, nullptr);
  ns.lrc.discard_history(costs);
}

}  // namespace ncp2::dsm
