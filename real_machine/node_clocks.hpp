#pragma once
// The clocks of a real run's nodes: the time source every node timestamps with (the TSC,
// calibrated) and, on node 0, each node's clock relative to node 0's from the synchronization
// bursts at the run's start and end (seed 001's method over MPI).
#include <mpi.h>

#include <string>
#include <vector>

#include "host_timing/tick_clock.hpp"
#include "real_machine/results.hpp"

namespace ncp2::real {

class NodeClocks {
 public:
  NodeClocks(MPI_Comm world, int exchanges);
  // Collective: every node calls them.
  void first_burst();
  void second_burst();
  [[nodiscard]] const timing::TickClock& tick_clock() const { return clock_; }
  // Node 0: every node's map (identity for node 0). Other nodes: their own only.
  [[nodiscard]] std::vector<ClockMap> maps() const;
  [[nodiscard]] std::string source() const { return clock_.describe(); }

 private:
  MPI_Comm world_;
  int exchanges_;
  int rank_ = 0;
  int size_ = 1;
  timing::TickClock clock_;
};

}  // namespace ncp2::real
