#include "host_timing/measured_time.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::timing {

MeasuredTimeModel::MeasuredTimeModel(TickClock clock, int nodes, double scale, std::uint64_t probe_ticks)
    : clock_(clock),
      scale_(scale),
      ps_per_tick_(1e12 / clock.ticks_per_second() * scale),
      probe_ticks_(probe_ticks),
      nodes_(static_cast<std::size_t>(std::max(nodes, 0))) {
  if (!(scale > 0) || !std::isfinite(scale))
    throw std::invalid_argument(
        fmt::format("measured time model: the scale must be a positive number, got {}", scale));
  if (!(clock.ticks_per_second() > 0))
    throw std::invalid_argument("measured time model: the clock has no frequency");
}

std::uint64_t MeasuredTimeModel::measure_probe_ticks(const TickClock& clock, int trials) {
  // The same work as a real empty stretch: a resume and an end_stretch on a one-node model. The
  // median, not the minimum: two back-to-back TSC reads can overlap in the pipeline (the minimum
  // is ~1 tick), while noise (an interrupt, a migration) only lengthens a trial.
  MeasuredTimeModel probe(clock, 1, 1.0, 0);
  const dsm::NodeId node = emu::node_id(0);
  probe.begin(node);
  (void)probe.end_stretch(node);
  std::vector<std::uint64_t> ticks(static_cast<std::size_t>(std::max(trials, 1)));
  for (auto& t : ticks) {
    probe.resume(node);
    const std::uint64_t before = probe.nodes_[0].stats.host_ticks;
    (void)probe.end_stretch(node);
    t = probe.nodes_[0].stats.host_ticks - before;
  }
  std::nth_element(ticks.begin(), ticks.begin() + static_cast<std::ptrdiff_t>(ticks.size() / 2), ticks.end());
  return ticks[ticks.size() / 2];
}

MeasuredTimeModel::NodeState& MeasuredTimeModel::node_state(dsm::NodeId node) {
  const auto i = static_cast<std::size_t>(emu::index(node));
  if (i >= nodes_.size()) nodes_.resize(i + 1);
  return nodes_[i];
}

const MeasuredNodeStats& MeasuredTimeModel::stats(dsm::NodeId node) const {
  return nodes_.at(static_cast<std::size_t>(emu::index(node))).stats;
}

MeasuredNodeStats MeasuredTimeModel::totals() const {
  MeasuredNodeStats t;
  for (const auto& n : nodes_) {
    t.stretches += n.stats.stretches;
    t.host_ticks += n.stats.host_ticks;
    t.subtracted_ticks += n.stats.subtracted_ticks;
    t.charged += n.stats.charged;
  }
  return t;
}

void MeasuredTimeModel::begin(dsm::NodeId node) {
  NodeState& n = node_state(node);
  n.active = true;
  resume(node);
}

void MeasuredTimeModel::resume(dsm::NodeId node) {
  NodeState& n = node_state(node);
  if (!n.active) return;
  if (observer_) observer_->stretch_begin(node);
  n.measuring = true;
  n.start = clock_.now();
}

emu::Duration MeasuredTimeModel::end_stretch(dsm::NodeId node) {
  const std::uint64_t end = clock_.now();
  NodeState& n = node_state(node);
  if (!n.measuring) return emu::Duration{0};
  n.measuring = false;
  if (n.external) return emu::Duration{0};  // its process reports the stretch (external_duration)
  const std::uint64_t ticks = end >= n.start ? end - n.start : 0;  // a clock that went back: nothing
  const std::uint64_t subtracted = std::min(ticks, probe_ticks_);
  const emu::Duration charged{std::llround(static_cast<double>(ticks - subtracted) * ps_per_tick_)};
  ++n.stats.stretches;
  n.stats.host_ticks += ticks;
  n.stats.subtracted_ticks += subtracted;
  n.stats.charged += charged;
  if (observer_) observer_->stretch_end(node, ticks, charged);
  return charged;
}

std::string MeasuredTimeModel::set_external(dsm::NodeId node) {
  if (clock_.kind() != TickClock::Kind::Tsc)
    return fmt::format("a program's node times its own computation with the TSC, and this run's clock is {}",
                       clock_.describe());
  node_state(node).external = true;
  return {};
}

emu::Duration MeasuredTimeModel::external_duration(dsm::NodeId node, std::uint64_t tsc_ticks) {
  // The process's stretch is read around its own code only (no probe of ours inside it).
  const emu::Duration charged{std::llround(static_cast<double>(tsc_ticks) * ps_per_tick_)};
  NodeState& n = node_state(node);
  ++n.stats.stretches;
  n.stats.host_ticks += tsc_ticks;
  n.stats.charged += charged;
  return charged;
}

void MeasuredTimeModel::finish(dsm::NodeId node) {
  NodeState& n = node_state(node);
  n.measuring = false;
  n.active = false;
}

}  // namespace ncp2::timing
