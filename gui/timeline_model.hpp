#pragma once
// The Timeline view's data and geometry, without Qt: the stored `timeline` table as one lane per
// processor (each node's PP, and its CP when the machine has protocol controllers), the waits
// with a cause as flows from the causing node to the waiter, and what one lane looks like in a
// window of time at a given zoom: segments narrower than a pixel are merged per pixel column, so
// that a paint costs O(visible segments) and draws O(width) rectangles whatever the run's size.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "carnival/model.hpp"

namespace ncp2::gui {

// One stretch of a lane, compact (a run may store millions): its operation is an index into
// TimelineData::operations.
struct TimelineSegment {
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  std::uint32_t scope = 0;
  std::uint16_t operation = 0;
  carnival::Category category = carnival::Category::Comp;
};

struct TimelineLane {
  int node = 0;
  bool cp = false;
  std::vector<TimelineSegment> segments;  // by start; they do not overlap
};

// A wait with synchronization delay, drawn from the node that caused it to the waiter. The store
// keeps the parts, not when the cause released the waiter: that is estimated as the end of the
// delay (start + SyncDelay), and the arrow ends where the wait ends.
struct TimelineFlow {
  int waiter = 0;
  bool waiter_cp = false;  // a CPWait: the waiter's CP
  int cause = 0;
  std::int64_t start_ps = 0;
  std::int64_t release_ps = 0;
  std::int64_t end_ps = 0;
  std::uint32_t scope = 0;
  std::uint16_t operation = 0;
};

struct TimelineData {
  std::string path;
  std::vector<TimelineLane> lanes;  // node 0 PP, node 0 CP, node 1 PP, ... (no CP lanes without CP)
  std::vector<std::string> operations;
  std::vector<TimelineFlow> flows;  // by end
  std::int64_t end_ps = 0;          // the run's virtual time, or the last segment's end
  std::uint64_t dropped = 0;        // segments not stored (meta timeline_dropped)
  std::size_t segment_count = 0;
  bool has_cp = false;

  // The lane of a node's PP or CP, if shown.
  [[nodiscard]] std::optional<std::size_t> lane_of(int node, bool cp) const;
};

// Reads the timeline and the flows of a run file. Throws carnival::StoreError with the messages
// of docs/schema.md (and "FILE is corrupt: ..." for a category the schema does not know).
TimelineData load_timeline(const std::string& path);

// A window of time on the screen: x = (t - start) / ps_per_pixel.
struct TimeWindow {
  double start_ps = 0;
  double ps_per_pixel = 1;

  [[nodiscard]] double x_of(double t_ps) const { return (t_ps - start_ps) / ps_per_pixel; }
  [[nodiscard]] double t_of(double x) const { return start_ps + x * ps_per_pixel; }
  [[nodiscard]] double end_ps(int width) const { return t_of(width); }
  // [0, end_ps) over `width` pixels.
  static TimeWindow fit(std::int64_t end_ps, int width);
  // Zoomed by `factor` (> 1: closer) keeping the time under pixel x where it is; at most
  // kMinPsPerPixel per pixel (1 ps).
  [[nodiscard]] TimeWindow zoomed(double factor, double x) const;
  [[nodiscard]] TimeWindow panned(double dx_pixels) const;
  static constexpr double kMinPsPerPixel = 1.0;
};

// What to draw of a lane: a run of whole pixels [x0, x1) in one category. A pixel column holding
// several segments is one run of width 1 in the category with the most time in it.
struct PixelRun {
  int x0 = 0;
  int x1 = 0;
  carnival::Category category = carnival::Category::Comp;
  bool selected = false;   // holds time of the selected scope
  std::size_t merged = 1;  // segments it stands for
};

// The runs of `lane` visible in [0, width) of `window`, left to right; adjacent runs of one
// category and selection state are joined. `selected_scope` < 0: none.
std::vector<PixelRun> lane_runs(const TimelineLane& lane, const TimeWindow& window, int width,
                                std::int64_t selected_scope);

// The segment of `lane` holding time t, or null.
const TimelineSegment* segment_at(const TimelineLane& lane, std::int64_t t_ps);

// The wait with a cause that `node`'s PP (or CP) was in at time t, if any (for tooltips: who made
// it wait). Looks at the flows ending from t on, at most kFlowScan of them.
inline constexpr std::size_t kFlowScan = 4096;
const TimelineFlow* flow_at(const TimelineData& data, int node, bool cp, std::int64_t t_ps);

// The flows whose arrow crosses [from, to) in time, at most `limit` (the first ones by end);
// `total` receives how many there are.
std::vector<const TimelineFlow*> visible_flows(const TimelineData& data, std::int64_t from_ps,
                                               std::int64_t to_ps, std::size_t limit, std::size_t* total);

}  // namespace ncp2::gui
