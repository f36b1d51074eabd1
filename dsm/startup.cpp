// Tmk_startup and Tmk_exit: each node's PP runs the program as a Process, then the exit barrier.
// Here, not in runtime.cpp, so that the runtime does not depend on the workload API built on it.
#include "dsm/runtime.hpp"

#include "dsm/process.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

void Runtime::start(const std::function<void(Process&)>& body,
                    const std::function<void(Process&)>& after_exit) {
  for (auto& node : nodes_) {
    NodeState* ns = node.get();
    ns->pp->start([this, ns, body, after_exit] {
      Process p(*this, ns->id, page_size_);  // lives as long as the node's program and after_exit
      if (meter_) meter_->begin(ns->id);     // measured time model: the first stretch
      body(p);
      if (meter_) {  // ... and the last one, charged at Tmk_exit
        ns->pp->compute(meter_->end_stretch(ns->id));
        meter_->finish(ns->id);
      }
      ns->driver.barrier(BarrierId{kExitBarrier});  // Tmk_exit
      ns->exited = true;
      ns->exit_time = kernel_.now();
      for (const auto& [id, observer] : exit_observers_) observer(ns->id, ns->exit_time);
      if (after_exit) after_exit(p);
      checks_.at_entry(ns->id);  // a stale span used in the verification
    });
  }
}

}  // namespace ncp2::dsm
