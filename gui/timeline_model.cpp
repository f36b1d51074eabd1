#include "gui/timeline_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "carnival/run_reader.hpp"

namespace ncp2::gui {

using carnival::Category;
using carnival::StoreError;

namespace {

constexpr int kMaxNodes = 16384;  // emu::kMaxNodes (emulator/config.hpp)

// Operation names are few: each gets a small number once.
class OperationNames {
 public:
  explicit OperationNames(std::vector<std::string>& names) : names_(names) {}
  std::uint16_t index(const std::string& name) {
    if (auto it = index_.find(name); it != index_.end()) return it->second;
    const auto i = static_cast<std::uint16_t>(std::min<std::size_t>(names_.size(), 0xFFFF));
    if (names_.size() < 0xFFFF) names_.push_back(name);
    index_.emplace(name, i);
    return i;
  }

 private:
  std::vector<std::string>& names_;
  std::map<std::string, std::uint16_t> index_;
};

// `nodes`: the run's node count; a segment of another node is damage, not a lane to add.
void read_segments(const carnival::RunReader& reader, int nodes, TimelineData& d, OperationNames& ops) {
  // By node and start (the index timeline_by_node): each lane's segments come in order.
  reader.each_segment(carnival::SegmentOrder::ByNodeAndStart, [&](const carnival::Segment& s) {
    if (s.node < 0 || s.node >= nodes)
      throw StoreError(
          fmt::format("{} is corrupt: the timeline has a segment of node {}, the run has {} nodes", d.path,
                      s.node, nodes));
    d.has_cp = d.has_cp || s.cp;
    const auto lane_id = static_cast<std::size_t>(s.node) * 2 + (s.cp ? 1 : 0);
    if (lane_id >= d.lanes.size()) d.lanes.resize((lane_id / 2 + 1) * 2);  // both lanes of the node
    auto& lane = d.lanes[lane_id];
    lane.node = s.node;
    lane.cp = s.cp;
    // Lanes are searched by start and by end: a damaged file's overlap is cut off, not kept.
    const std::int64_t previous_end = lane.segments.empty() ? 0 : lane.segments.back().end_ps;
    TimelineSegment seg;
    seg.category = s.category;
    seg.operation = ops.index(s.operation);
    seg.scope = s.scope;
    seg.start_ps = std::max(s.start_ps, previous_end);
    seg.end_ps = std::max(seg.start_ps, s.end_ps);
    d.end_ps = std::max(d.end_ps, seg.end_ps);
    lane.segments.push_back(seg);
    ++d.segment_count;
  });
}

void read_flows(const carnival::RunReader& reader, TimelineData& d, OperationNames& ops) {
  reader.each_wait(carnival::WaitFilter::Caused, [&](const carnival::WaitRow& w) {
    TimelineFlow f;
    f.waiter = w.node;
    f.waiter_cp = w.kind == "CPWait";
    f.cause = w.cause_node;
    f.start_ps = w.start_ps;
    f.end_ps = f.start_ps + std::max<std::int64_t>(0, w.duration_ps);
    f.release_ps = std::clamp(f.start_ps + w.parts[static_cast<std::size_t>(carnival::WaitPart::SyncDelay)],
                              f.start_ps, f.end_ps);
    f.scope = w.scope;
    f.operation = ops.index(w.operation);
    d.flows.push_back(f);
  });
  std::sort(d.flows.begin(), d.flows.end(),
            [](const TimelineFlow& a, const TimelineFlow& b) { return a.end_ps < b.end_ps; });
}

}  // namespace

std::optional<std::size_t> TimelineData::lane_of(int node, bool cp) const {
  for (std::size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].node == node && lanes[i].cp == cp) return i;
  return std::nullopt;
}

TimelineData load_timeline(const std::string& path) {
  const carnival::RunReader reader(path);
  TimelineData d;
  d.path = path;
  const auto& run = reader.run();
  // The emulator's own limit: more would be a damaged row, and lanes to match would not fit memory.
  if (run.nodes < 0 || run.nodes > kMaxNodes)
    throw StoreError(
        fmt::format("{} is corrupt: the run has {} nodes (at most {})", path, run.nodes, kMaxNodes));
  OperationNames ops(d.operations);
  read_segments(reader, run.nodes, d, ops);
  read_flows(reader, d, ops);
  // Every node gets its lanes, with or without segments; CP lanes only on a machine with CPs.
  const int nodes = run.nodes;
  d.has_cp = d.has_cp || run.machine == "ncp2";
  std::vector<TimelineLane> lanes;
  for (int n = 0; n < nodes; ++n)
    for (bool cp : {false, true}) {
      if (cp && !d.has_cp) continue;
      const auto i = static_cast<std::size_t>(n) * 2 + (cp ? 1 : 0);
      TimelineLane lane = i < d.lanes.size() ? std::move(d.lanes[i]) : TimelineLane{};
      lane.node = n;
      lane.cp = cp;
      lanes.push_back(std::move(lane));
    }
  d.lanes = std::move(lanes);
  d.end_ps = std::max(d.end_ps, run.virtual_time_ps);
  d.dropped = reader.meta_count("timeline_dropped");
  return d;
}

TimeWindow TimeWindow::fit(std::int64_t end_ps, int width) {
  return {0, std::max(kMinPsPerPixel, static_cast<double>(std::max<std::int64_t>(end_ps, 1)) /
                                          static_cast<double>(std::max(width, 1)))};
}

TimeWindow TimeWindow::zoomed(double factor, double x) const {
  const double t = t_of(x);
  const double ppp = std::max(kMinPsPerPixel, ps_per_pixel / factor);
  return {t - x * ppp, ppp};
}

TimeWindow TimeWindow::panned(double dx_pixels) const {
  return {start_ps - dx_pixels * ps_per_pixel, ps_per_pixel};
}

namespace {

// Collects the segments that fall into one pixel column, then emits it in its dominant category.
class PixelColumn {
 public:
  [[nodiscard]] bool empty() const { return count_ == 0; }
  [[nodiscard]] int x() const { return x_; }
  void add(int x, const TimelineSegment& s, std::int64_t visible_ps, bool selected) {
    x_ = x;
    times_[static_cast<std::size_t>(s.category)] += visible_ps;
    selected_ = selected_ || selected;
    ++count_;
  }
  PixelRun take() {
    const auto dominant = std::max_element(times_.begin(), times_.end()) - times_.begin();
    PixelRun run{x_, x_ + 1, static_cast<Category>(dominant), selected_, count_};
    *this = PixelColumn{};
    return run;
  }

 private:
  int x_ = 0;
  std::array<std::int64_t, carnival::kCategories> times_{};
  bool selected_ = false;
  std::size_t count_ = 0;
};

void append(std::vector<PixelRun>& runs, PixelRun run) {
  if (run.x1 <= run.x0) return;
  if (!runs.empty()) {
    auto& last = runs.back();
    if (run.x0 < last.x1) run.x0 = last.x1;  // a wide segment's rounding may overlap a merged pixel
    if (run.x1 <= run.x0) {
      last.merged += run.merged;
      return;
    }
    if (last.x1 == run.x0 && last.category == run.category && last.selected == run.selected) {
      last.x1 = run.x1;
      last.merged += run.merged;
      return;
    }
  }
  runs.push_back(run);
}

}  // namespace

std::vector<PixelRun> lane_runs(const TimelineLane& lane, const TimeWindow& window, int width,
                                std::int64_t selected_scope) {
  std::vector<PixelRun> runs;
  if (width <= 0) return runs;
  const double from = window.start_ps;
  const double to = window.end_ps(width);
  const auto& segs = lane.segments;
  // The first segment ending after the window's start (segments do not overlap: ends ascend too).
  auto it = std::upper_bound(segs.begin(), segs.end(), from, [](double t, const TimelineSegment& s) {
    return t < static_cast<double>(s.end_ps);
  });
  PixelColumn column;
  for (; it != segs.end() && static_cast<double>(it->start_ps) < to; ++it) {
    const double x0 = std::max(0.0, window.x_of(static_cast<double>(it->start_ps)));
    const double x1 = std::min(static_cast<double>(width), window.x_of(static_cast<double>(it->end_ps)));
    if (x1 <= x0) continue;
    const bool selected = selected_scope >= 0 && it->scope == static_cast<std::uint64_t>(selected_scope);
    const int px0 = static_cast<int>(std::floor(x0));
    const int px1 = static_cast<int>(std::ceil(x1));
    if (!column.empty() && column.x() != px0) append(runs, column.take());
    if (px1 - px0 <= 1 || x1 - x0 < 1.0) {
      // Narrower than a pixel: it shares a pixel column with its neighbours.
      column.add(px0, *it, it->end_ps - it->start_ps, selected);
      continue;
    }
    // Wide: its own run, from the pixel its start falls in (after a merged column there).
    if (!column.empty()) append(runs, column.take());
    append(runs, {px0, px1, it->category, selected, 1});
  }
  if (!column.empty()) append(runs, column.take());
  return runs;
}

const TimelineSegment* segment_at(const TimelineLane& lane, std::int64_t t_ps) {
  const auto& segs = lane.segments;
  auto it = std::upper_bound(segs.begin(), segs.end(), t_ps,
                             [](std::int64_t t, const TimelineSegment& s) { return t < s.end_ps; });
  if (it == segs.end() || it->start_ps > t_ps) return nullptr;
  return &*it;
}

const TimelineFlow* flow_at(const TimelineData& data, int node, bool cp, std::int64_t t_ps) {
  auto it = std::lower_bound(data.flows.begin(), data.flows.end(), t_ps,
                             [](const TimelineFlow& f, std::int64_t t) { return f.end_ps < t; });
  for (std::size_t n = 0; it != data.flows.end() && n < kFlowScan; ++it, ++n)
    if (it->waiter == node && it->waiter_cp == cp && it->start_ps <= t_ps) return &*it;
  return nullptr;
}

std::vector<const TimelineFlow*> visible_flows(const TimelineData& data, std::int64_t from_ps,
                                               std::int64_t to_ps, std::size_t limit, std::size_t* total) {
  std::vector<const TimelineFlow*> out;
  std::size_t count = 0;
  auto it = std::lower_bound(data.flows.begin(), data.flows.end(), from_ps,
                             [](const TimelineFlow& f, std::int64_t t) { return f.end_ps < t; });
  for (; it != data.flows.end(); ++it) {
    if (it->release_ps >= to_ps) continue;
    ++count;
    if (out.size() < limit) out.push_back(&*it);
  }
  if (total) *total = count;
  return out;
}

}  // namespace ncp2::gui
