#include "sweep/sweep_plots.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "sweep/sweep_plots_internal.hpp"

namespace ncp2::sweep {

namespace {

using figures::Anchor;
using figures::Box;
using figures::Figure;
using figures::LineShape;
using figures::Point;
using figures::RectShape;
using figures::Scale;
using figures::TextShape;

constexpr double kNoteLine = 17;

std::string short_label(const SweepPoint& p, bool keys_named_once) {
  if (!keys_named_once) return p.series();
  std::string out = p.machine;
  for (const auto& s : p.setting_values) out += ", " + s.value;
  return out;
}

}  // namespace

namespace plots {

std::vector<std::string> common_keys(const Sweep& sweep) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    std::vector<std::string> these;
    for (const auto& s : sweep.points[i].setting_values) these.push_back(s.key);
    if (i == 0) keys = these;
    if (these != keys) return {};
  }
  return keys;
}

std::vector<Series> all_series(const Sweep& sweep) {
  std::vector<Series> out;
  const bool keys_named_once = !common_keys(sweep).empty();
  for (const auto& p : sweep.points) {
    const std::string label = p.series();
    auto it = std::find_if(out.begin(), out.end(), [&](const Series& s) { return s.label == label; });
    if (it == out.end())
      it = out.insert(out.end(),
                      Series{label, short_label(p, keys_named_once), p.machine, p.settings, {}, {}});
    (p.status == PointStatus::Done ? it->points : it->unfinished).push_back(&p);
  }
  for (auto& s : out)
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const SweepPoint* a, const SweepPoint* b) { return a->nodes < b->nodes; });
  return out;
}

std::vector<int> node_counts(const std::vector<Series>& series, bool with_unfinished) {
  std::set<int> nodes;
  for (const auto& s : series) {
    for (const auto* p : s.points) nodes.insert(p->nodes);
    if (with_unfinished)
      for (const auto* p : s.unfinished) nodes.insert(p->nodes);
  }
  return {nodes.begin(), nodes.end()};
}

std::string fit(const std::string& text, double width, double size) {
  return figures::fit_text(text, width, size, figures::Elide::Middle);
}

std::string left_out_note(const Sweep& sweep) {
  const auto failed = sweep.count(PointStatus::Failed);
  const auto not_run = sweep.count(PointStatus::NotRun);
  if (failed == 0 && not_run == 0) return "";
  std::string out = "left out:";
  if (failed > 0) out += fmt::format(" {} failed", failed);
  if (failed > 0 && not_run > 0) out += ",";
  if (not_run > 0) out += fmt::format(" {} not run", not_run);
  return out + fmt::format(" (of {} points)", sweep.points.size());
}

std::string target_of(const Sweep& sweep) {
  return sweep.header.target.empty() ? std::string("sweep") : sweep.header.target;
}

Figure blank(double width, double height) {
  Figure f;
  f.width = static_cast<int>(std::ceil(width));
  f.height = static_cast<int>(std::ceil(height));
  f.shapes.emplace_back(
      RectShape{{0, 0}, static_cast<double>(f.width), static_cast<double>(f.height), "#ffffff", ""});
  return f;
}

void add_title(Figure& f, const std::string& title, const std::string& subtitle) {
  const double room = f.width - 2 * kMargin;
  using figures::fit_text;
  f.shapes.emplace_back(
      TextShape{{kMargin, 28}, fit_text(title, room, kTitleSize), kTitleSize, Anchor::Start, true});
  f.shapes.emplace_back(
      TextShape{{kMargin, 48}, fit_text(subtitle, room, 12), 12, Anchor::Start, false, kGrey});
}

std::vector<std::string> notes_of(std::vector<std::string> notes) {
  std::erase_if(notes, [](const std::string& n) { return n.empty(); });
  return notes;
}
double notes_height(const std::vector<std::string>& notes) {
  return kNoteLine * static_cast<double>(notes.size());
}

void add_notes(Figure& f, double top, const std::vector<std::string>& notes) {
  double y = top;
  for (const auto& n : notes) {
    f.shapes.emplace_back(TextShape{{kMargin, y}, n, 12, Anchor::Start, false, kWarning});
    y += kNoteLine;
  }
}

}  // namespace plots

namespace {

using namespace plots;

struct SeriesStyle {
  std::string colour;
  bool dashed = false;
};

// One colour per settings and a dashed line for the second machine, so that ncp2 and treadmarks at
// equal settings are two lines of one colour; without settings, a colour per machine. The palette
// without its black, then its colours again dashed.
std::vector<SeriesStyle> series_styles(const std::vector<Series>& series) {
  std::vector<std::string> settings;
  std::vector<std::string> machines;
  const auto index_in = [](std::vector<std::string>& seen, const std::string& value) {
    const auto it = std::find(seen.begin(), seen.end(), value);
    if (it != seen.end()) return static_cast<std::size_t>(it - seen.begin());
    seen.push_back(value);
    return seen.size() - 1;
  };
  std::vector<std::pair<std::size_t, std::size_t>> indexes;  // settings, machine
  indexes.reserve(series.size());
  for (const auto& s : series)
    indexes.emplace_back(index_in(settings, s.settings), index_in(machines, s.machine));
  std::vector<SeriesStyle> out;
  for (const auto& [setting, machine] : indexes) {
    const bool by_machine = settings.size() <= 1;
    const std::size_t colour = by_machine ? machine : setting;
    const bool dashed = by_machine || machines.size() == 1 ? (colour / 6) % 2 == 1 : machine % 2 == 1;
    out.push_back({figures::palette_colour(1 + colour % 6), dashed});
  }
  return out;
}

constexpr double kPlotLeft = 70;
constexpr double kPlotTop = 84;
constexpr double kPlotWidth = 620;
constexpr double kPlotHeight = 400;

// The curve each finished point with a speedup lies on.
std::vector<Series> speedup_series(const Sweep& sweep) {
  auto series = all_series(sweep);
  for (auto& s : series) std::erase_if(s.points, [](const SweepPoint* p) { return !p->speedup; });
  std::erase_if(series, [](const Series& s) { return s.points.empty(); });
  return series;
}

// Linear speedup, speedup = nodes, from the smallest node count to where it leaves the plot.
void add_ideal(Figure& f, const Scale& x, const Scale& y, double from, double to) {
  LineShape ideal{{}, "#999999", 1.2, true, "ideal"};
  constexpr int kSteps = 48;  // a straight line on a log axis is a curve on a linear one
  for (int k = 0; k <= kSteps; ++k) {
    const double n = from * std::pow(to / from, static_cast<double>(k) / kSteps);
    if (n > y.high) break;
    ideal.points.push_back({x(n), y(n)});
  }
  if (ideal.points.size() > 1) f.shapes.emplace_back(std::move(ideal));
}

// Whether an unfinished point of the series lies between node counts `a` and `b`: the curve
// breaks there rather than drawing a line over the missing point.
bool gap_between(const Series& s, int a, int b) {
  return std::any_of(s.unfinished.begin(), s.unfinished.end(),
                     [&](const SweepPoint* p) { return p->nodes > a && p->nodes < b; });
}

void add_curves(Figure& f, SweepFigure& out, const std::vector<Series>& series, const Scale& x,
                const Scale& y) {
  const auto styles = series_styles(series);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& points = series[i].points;
    LineShape curve{{}, styles[i].colour, 2, styles[i].dashed, "curve"};
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (k > 0 && gap_between(series[i], points[k - 1]->nodes, points[k]->nodes)) {
        f.shapes.emplace_back(curve);
        curve.points.clear();
      }
      curve.points.push_back({x(points[k]->nodes), y(*points[k]->speedup)});
    }
    f.shapes.emplace_back(curve);
    for (const auto* p : points) {
      const Point at{x(p->nodes), y(*p->speedup)};
      f.shapes.emplace_back(figures::CircleShape{at, 4, styles[i].colour, "#ffffff", "point"});
      out.marks.push_back({p->id, {at.x - 6, at.y - 6, 12, 12}});
    }
  }
}

std::string missing_speedup_note(const Sweep& sweep) {
  std::size_t without = 0;
  for (const auto& p : sweep.points)
    if (p.status == PointStatus::Done && !p.speedup) ++without;
  if (without == 0) return "";
  return fmt::format(
      "{} finished point{} without a 1-node point of the same machine and settings (no speedup)", without,
      without == 1 ? "" : "s");
}

}  // namespace

namespace {

// The plot itself: ticks, grid, the linear speedup, the curves and the legend (or why there is
// nothing to plot).
void add_speedup_area(Figure& f, SweepFigure& out, const std::vector<Series>& series, const Box& area,
                      const std::string& heading, const std::vector<figures::LegendEntry>& legend) {
  const std::vector<int> nodes = node_counts(series, false);
  if (nodes.empty()) {
    f.shapes.emplace_back(RectShape{{area.left, area.top}, area.width, area.height, "", "#000000"});
    f.shapes.emplace_back(TextShape{{area.left + area.width / 2, area.top + area.height / 2},
                                    "no finished point with a speedup to plot",
                                    14,
                                    Anchor::Middle,
                                    false,
                                    kWarning});
    return;
  }
  const Scale x{nodes.front() / std::sqrt(2.0), nodes.back() * std::sqrt(2.0), area.left, area.right(), true};
  double highest = 1;
  for (const auto& s : series)
    for (const auto* p : s.points) highest = std::max(highest, *p->speedup);
  const auto ticks = figures::nice_ticks(0, highest * 1.05, area.height < 250 ? 5 : 7);
  const Scale y{ticks.low, ticks.high, area.bottom(), area.top};
  std::vector<double> at;
  std::vector<std::string> labels;
  for (const int n : nodes) {
    at.push_back(n);
    labels.push_back(std::to_string(n));
  }
  figures::add_x_ticks(f, area, x, at, labels);
  figures::add_y_grid(f, area, ticks.low, ticks.high, ticks.step, "×");
  add_ideal(f, x, y, nodes.front(), nodes.back());
  add_curves(f, out, series, x, y);
  double top = area.top + 12;
  if (!heading.empty()) {
    f.shapes.emplace_back(TextShape{{area.right() + kLegendGap, top}, heading, 12, Anchor::Start, true});
    top += 22;
  }
  figures::add_legend(f, {area.right() + kLegendGap, top}, legend);
}

// How wide a legend's labels may be: the files' 330 px, less in a narrow figure.
double label_room(const FigureSize& size) {
  return size.width > 0 ? std::clamp(size.width * 0.28, 120.0, 330.0) : 330;
}

}  // namespace

SweepFigure speedup_figure(const Sweep& sweep, FigureSize size) {
  const auto series = speedup_series(sweep);
  std::vector<figures::LegendEntry> legend;
  const auto styles = series_styles(series);
  for (std::size_t i = 0; i < series.size(); ++i)
    legend.push_back({fit(series[i].short_label, label_room(size), 12), styles[i].colour,
                      figures::LegendMark::LineAndMarker, styles[i].dashed});
  legend.push_back({"linear (speedup = nodes)", "#999999", figures::LegendMark::Line, true});
  // The keys every curve has, named once above the curves' values.
  std::string heading;
  if (const auto keys = common_keys(sweep); !keys.empty()) {
    heading = "machine";
    for (const auto& k : keys) heading += ", " + k;
    heading = fit(heading, label_room(size) * 1.5, 12);
  }
  const auto notes = notes_of({left_out_note(sweep), missing_speedup_note(sweep)});
  const double legend_width = std::max(figures::legend_width(legend), figures::text_width(heading, 12));
  const double fixed_width = kPlotLeft + kLegendGap + legend_width + kMargin;
  const double fixed_height = kPlotTop + 56 + notes_height(notes);
  const Box area{kPlotLeft, kPlotTop, size.width > 0 ? std::max(size.width - fixed_width, 200.0) : kPlotWidth,
                 size.height > 0 ? std::max(size.height - fixed_height, 150.0) : kPlotHeight};
  SweepFigure out;
  out.figure = blank(area.width + fixed_width, area.height + fixed_height);
  Figure& f = out.figure;
  add_title(f, fmt::format("ncp2 sweep {}: speedup over 1 node", target_of(sweep)),
            "virtual time on 1 node / on N nodes, of the same machine and settings");
  add_speedup_area(f, out, series, area, heading, legend);
  f.shapes.emplace_back(
      TextShape{{area.left + area.width / 2, area.bottom() + 40}, "nodes (log scale)", 12, Anchor::Middle});
  f.shapes.emplace_back(TextShape{{area.left - 40, area.top - 10}, "speedup", 12, Anchor::Start, true});
  add_notes(f, area.bottom() + 66, notes);
  return out;
}

std::vector<std::string> write_sweep_plots(const std::string& sweep_dir) {
  const Sweep sweep = read_sweep(sweep_dir);
  const std::vector<std::pair<std::string, Figure>> drawn = {
      {"speedup", speedup_figure(sweep).figure},
      {"categories", categories_figure(sweep, category_styles(sweep)).figure}};
  std::vector<std::string> written;
  for (const auto& [name, figure] : drawn)
    for (const char* extension : {".svg", ".png"}) {
      if (std::string_view(extension) == ".png" && !figures::png_available()) continue;
      const std::string path = (std::filesystem::path(sweep.folder) / (name + extension)).string();
      figures::write_figure(figure, path);
      written.push_back(path);
    }
  return written;
}

}  // namespace ncp2::sweep
