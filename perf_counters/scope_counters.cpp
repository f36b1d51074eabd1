#include "perf_counters/scope_counters.hpp"

#include "emulator/ids.hpp"
#include "perf_counters/perf_group.hpp"
#include "perf_counters/series.hpp"

namespace ncp2::counters {

ScopeCounterMeter::ScopeCounterMeter(dsm::ComputeMeter& inner, std::vector<std::string> events,
                                     ScopeOf scope_of)
    : inner_(inner), names_(std::move(events)), scope_of_(std::move(scope_of)) {
  if (names_.empty())
    names_ = {"task-clock", "page-faults",     "instructions",
              "cycles",     "L1-dcache-loads", "L1-dcache-load-misses"};
}

ScopeCounterMeter::~ScopeCounterMeter() = default;

void ScopeCounterMeter::open_group() {
  // The nodes' fibers all run on this thread: one group on it, counting only between mark() and
  // end_stretch(), separates the nodes and leaves out the emulator's own work.
  group_ = std::make_unique<CounterGroup>(0, names_, GroupOptions{.inherit = false, .enable_on_exec = false});
  events_ = group_->events();
  group_->enable();
}

void ScopeCounterMeter::mark(dsm::NodeId node) {
  const auto i = static_cast<std::size_t>(emu::index(node));
  if (i >= stretch_start_.size()) {
    stretch_start_.resize(i + 1);
    in_stretch_.resize(i + 1, false);
  }
  if (!group_->empty()) stretch_start_[i] = group_->read();
  in_stretch_[i] = true;
}

void ScopeCounterMeter::begin(dsm::NodeId node) {
  if (!group_) open_group();
  mark(node);
  inner_.begin(node);
}

emu::Duration ScopeCounterMeter::end_stretch(dsm::NodeId node) {
  const emu::Duration charged = inner_.end_stretch(node);
  const auto i = static_cast<std::size_t>(emu::index(node));
  if (!group_ || i >= in_stretch_.size() || !in_stretch_[i]) return charged;
  in_stretch_[i] = false;
  ++stretches_;
  if (group_->empty()) return charged;
  const RawSample end = group_->read();
  const RawSample& start = stretch_start_[i];
  auto& cell = totals_[{emu::index(node), scope_of_(node)}];
  cell.resize(end.values.size(), 0.0);
  for (std::size_t k = 0; k < end.values.size(); ++k) {
    const auto delta = scaled_delta(start.values[k], end.values[k], start.enabled_ns, end.enabled_ns,
                                    start.running_ns, end.running_ns);
    // Once a stretch could not be counted, the cell's total is unknown, not a smaller number.
    cell[k] = delta && cell[k] ? std::optional<double>(*cell[k] + *delta) : std::nullopt;
  }
  return charged;
}

void ScopeCounterMeter::resume(dsm::NodeId node) {
  if (group_) mark(node);
  inner_.resume(node);
}

void ScopeCounterMeter::finish(dsm::NodeId node) {
  inner_.finish(node);
  const auto i = static_cast<std::size_t>(emu::index(node));
  if (i < in_stretch_.size()) in_stretch_[i] = false;
}

std::vector<ScopeCounterRow> ScopeCounterMeter::rows() const {
  std::vector<ScopeCounterRow> out;
  for (const auto& [key, values] : totals_)
    for (const auto& e : events_) {
      if (!e.available || e.group_index < 0) continue;
      const auto k = static_cast<std::size_t>(e.group_index);
      out.push_back({key.first, key.second, e.name, k < values.size() ? values[k] : std::nullopt});
    }
  return out;
}

}  // namespace ncp2::counters
