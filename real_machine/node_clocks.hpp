#pragma once
// The clocks of a real run's nodes: the RunClock every node timestamps with (the TSC, calibrated;
// on node 0's host, node 0's very clock) and, on node 0, each node's clock relative to node 0's
// from the synchronization bursts at the run's start and end (clock_sync_mpi.hpp, seed 001's
// method over MPI).
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "real_machine/clock_sync_mpi.hpp"
#include "real_machine/results.hpp"

namespace ncp2::real {

class NodeClocks {
 public:
  NodeClocks(MPI_Comm world, int exchanges);
  // Collective: every node calls them, in this order; second_burst() only when the run finished.
  void first_burst() { sync_->first_burst(); }
  void second_burst() { sync_->second_burst(); }
  [[nodiscard]] const RunClock& clock() const { return clock_; }
  // Node 0: every node's map (identity for node 0). Other nodes: empty.
  [[nodiscard]] std::vector<ClockMap> maps() const;
  [[nodiscard]] std::string source() const { return clock_.describe(); }

 private:
  void share_host_base(MPI_Comm world);
  RunClock clock_;
  std::unique_ptr<MpiClockSync> sync_;
};

}  // namespace ncp2::real
