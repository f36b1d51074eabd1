#include "real_machine/node_clocks.hpp"

#include "host_timing/calibration.hpp"

namespace ncp2::real {

namespace {
timing::TickClock calibrated_tsc() {
  const timing::CalibrationResult c = timing::calibrate_host_tsc(0.02, 3);
  return timing::TickClock::tsc(c.frequency_hz);
}
}  // namespace

NodeClocks::NodeClocks(MPI_Comm world, int exchanges)
    : world_(world), exchanges_(exchanges), clock_(calibrated_tsc()) {
  MPI_Comm_rank(world_, &rank_);
  MPI_Comm_size(world_, &size_);
}

void NodeClocks::first_burst() {}
void NodeClocks::second_burst() {}

std::vector<ClockMap> NodeClocks::maps() const {
  std::vector<ClockMap> out(static_cast<std::size_t>(size_));
  for (int k = 0; k < size_; ++k) out[static_cast<std::size_t>(k)].node = k;
  return out;
}

}  // namespace ncp2::real
