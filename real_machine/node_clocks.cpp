#include "real_machine/node_clocks.hpp"

namespace ncp2::real {

NodeClocks::NodeClocks(MPI_Comm world, int exchanges) {
  MpiSyncOptions options;
  options.exchanges = exchanges;
  sync_ = std::make_unique<MpiClockSync>(world, clock_, options);
}

std::vector<ClockMap> NodeClocks::maps() const {
  std::vector<ClockMap> out;
  for (const NodeClock& c : sync_->results()) {
    ClockMap m;
    m.node = c.node;
    m.offset_ns = c.offset_ns;
    m.drift_ppm = c.drift_ppm;
    m.ref_local_ns = c.ref_local_ns;
    m.bound_ns = c.bound_ns;
    m.drift_bound_ppm = c.drift_bound_ppm;
    m.rtt_min_ns = c.rtt_min_ns;
    m.synchronized = c.node != 0 && c.kept > 0;
    m.has_drift = c.has_drift;
    out.push_back(m);
  }
  return out;
}

}  // namespace ncp2::real
