#pragma once
// The measured time model (docs/timing.md): a dsm::ComputeMeter that times each stretch of
// native workload code between DSM entry points with the project's clock (the TSC, or
// clock_gettime where the TSC is unusable), subtracts the probe's own cost, and scales host time
// to target time:
//   charged = max(0, ticks - probe_ticks) * (1e12 / tick_hz) * scale   picoseconds,
// with scale = host_hz / target_hz for --target-mhz (the target runs the same cycles at its own
// clock; host_hz is the calibrated TSC frequency) or an explicit factor for --scale.
#include <cstdint>
#include <vector>

#include "dsm/compute_meter.hpp"
#include "host_timing/tick_clock.hpp"

namespace ncp2::timing {

// Hook for extra per-stretch measurements (e.g. hardware or software counter totals per scope:
// read the PP's attribution through the Cluster to know the scope). Called on the node's fiber:
// stretch_begin just before the stretch's first clock read, stretch_end just after its last, so
// the observer's own cost is outside the measured time. `host_ticks` is the raw stretch, before
// the probe cost is subtracted; `charged` the target time the node is charged for it.
class StretchObserver {
 public:
  virtual ~StretchObserver() = default;
  StretchObserver() = default;
  StretchObserver(const StretchObserver&) = delete;
  StretchObserver& operator=(const StretchObserver&) = delete;
  virtual void stretch_begin(dsm::NodeId node) = 0;
  virtual void stretch_end(dsm::NodeId node, std::uint64_t host_ticks, emu::Duration charged) = 0;
};

struct MeasuredNodeStats {
  std::uint64_t stretches = 0;
  std::uint64_t host_ticks = 0;        // raw, probe cost included
  std::uint64_t subtracted_ticks = 0;  // probe cost taken out
  emu::Duration charged{0};
};

class MeasuredTimeModel final : public dsm::ComputeMeter {
 public:
  // `scale`: target seconds per host second. `probe_ticks`: cost of one empty stretch, subtracted
  // from each (measure_probe_ticks). `host_hz`: the host clock frequency scale was derived from
  // (informational).
  MeasuredTimeModel(TickClock clock, int nodes, double scale, std::uint64_t probe_ticks);

  // The scale that runs the host's cycles at `target_mhz`.
  [[nodiscard]] static double scale_for_target(double host_hz, double target_mhz) {
    return host_hz / (target_mhz * 1e6);
  }
  // The cost of an empty stretch on `clock` (resume then end_stretch at once): the median over
  // `trials` (a stretch shorter than it is charged zero, never negative).
  [[nodiscard]] static std::uint64_t measure_probe_ticks(const TickClock& clock, int trials = 2000);

  void set_stretch_observer(StretchObserver* observer) { observer_ = observer; }

  void begin(dsm::NodeId node) override;
  emu::Duration end_stretch(dsm::NodeId node) override;
  void resume(dsm::NodeId node) override;
  void finish(dsm::NodeId node) override;
  [[nodiscard]] std::string set_external(dsm::NodeId node) override;
  [[nodiscard]] emu::Duration external_duration(dsm::NodeId node, std::uint64_t tsc_ticks) override;

  [[nodiscard]] const TickClock& clock() const { return clock_; }
  [[nodiscard]] double scale() const { return scale_; }
  [[nodiscard]] std::uint64_t probe_ticks() const { return probe_ticks_; }
  [[nodiscard]] const MeasuredNodeStats& stats(dsm::NodeId node) const;
  [[nodiscard]] MeasuredNodeStats totals() const;

 private:
  struct NodeState {
    std::uint64_t start = 0;
    bool measuring = false;  // inside a stretch
    bool active = false;     // between begin and finish
    bool external = false;   // timed by its own process (set_external)
    MeasuredNodeStats stats;
  };
  NodeState& node_state(dsm::NodeId node);

  TickClock clock_;
  double scale_;
  double ps_per_tick_;
  std::uint64_t probe_ticks_;
  std::vector<NodeState> nodes_;
  StretchObserver* observer_ = nullptr;
};

}  // namespace ncp2::timing
