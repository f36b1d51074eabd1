#include "real_machine/node_clocks.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace ncp2::real {

namespace {

// This host's name, as MPI gives it.
std::string host_name() {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  MPI_Get_processor_name(name.data(), &length);
  return {name.data(), static_cast<std::size_t>(length)};
}

}  // namespace

// Nodes on node 0's host read the same counter as node 0: they take node 0's epoch and rate, so
// that their clocks are node 0's (true offset zero, the synchronization's result checkable against
// its bound) instead of each starting at its own process's start.
void NodeClocks::share_host_base(MPI_Comm world) {
  RunClock::Base base = clock_.base();
  MPI_Bcast(&base, sizeof base, MPI_BYTE, 0, world);
  std::array<char, MPI_MAX_PROCESSOR_NAME> host0{};
  const std::string mine = host_name();
  std::copy_n(mine.begin(), std::min(mine.size(), host0.size() - 1), host0.begin());
  MPI_Bcast(host0.data(), static_cast<int>(host0.size()), MPI_CHAR, 0, world);
  if (std::string(host0.data()) == mine) clock_.adopt(base);
}

NodeClocks::NodeClocks(MPI_Comm world, int exchanges) {
  share_host_base(world);
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
