// The categories per point (sweep/sweep_plots.hpp): a panel per machine and settings, in each a
// stacked bar per point of the main processor's categories and one of the protocol controller's.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sweep/sweep_plots.hpp"
#include "sweep/sweep_plots_internal.hpp"

namespace ncp2::sweep {

namespace {

using namespace plots;
using figures::Anchor;
using figures::Box;
using figures::Figure;
using figures::Scale;
using figures::TextShape;

constexpr double kPanelLeft = 70;
constexpr double kPanelTop = 104;
constexpr double kPanelWidth = 270;
constexpr double kPanelHeight = 200;
constexpr double kPanelGapX = 60;  // the next panel's value labels
constexpr double kPanelGapY = 84;  // node labels, "nodes", the next panel's title
constexpr std::size_t kColumns = 3;

// A category as drawn: its colour and on which bar (the main processor's or the CP's).
struct Style {
  std::string colour;
  bool cp = false;
};

// Category name -> style; the wait parts (a breakdown of Wait) are not drawn.
std::map<std::string, Style> bar_styles(const std::vector<carnival::CategoryInfo>& styles) {
  std::map<std::string, Style> out;
  for (const auto& c : styles)
    if (c.resource != "WAIT") out[c.name] = {c.color, c.resource == "CP"};
  return out;
}

// The categories in the styles' order (then unknown ones, grey, on the PP bar), with whether any
// point has time in them.
struct Stack {
  std::vector<std::string> names;
  std::map<std::string, Style> style;
  [[nodiscard]] std::vector<figures::Segment> segments(const SweepPoint& p, bool cp, double divisor) const {
    std::vector<figures::Segment> out;
    for (const auto& name : names) {
      if (style.at(name).cp != cp) continue;
      double total = 0;
      for (const auto& c : p.categories)
        if (c.category == name) total += static_cast<double>(c.time_ps);
      out.push_back({total / divisor, style.at(name).colour});
    }
    return out;
  }
};

Stack stack_of(const std::vector<Series>& series, const std::vector<carnival::CategoryInfo>& styles) {
  Stack stack;
  stack.style = bar_styles(styles);
  std::set<std::string> used;
  for (const auto& s : series)
    for (const auto* p : s.points)
      for (const auto& c : p->categories)
        if (c.time_ps > 0) used.insert(c.category);
  for (const auto& c : styles)
    if (stack.style.contains(c.name) && used.contains(c.name)) stack.names.push_back(c.name);
  for (const auto& name : used)
    if (!stack.style.contains(name)) {
      stack.style[name] = {"#999999", false};
      stack.names.push_back(name);
    }
  return stack;
}

double sum(const std::vector<figures::Segment>& segments) {
  double total = 0;
  for (const auto& s : segments) total += s.value;
  return total;
}

// The unit of the time axis: the largest that keeps the tallest bar at one or more.
std::pair<double, const char*> time_unit(double highest_ps) {
  if (highest_ps >= 1e12) return {1e12, "s"};
  if (highest_ps >= 1e9) return {1e9, "ms"};
  if (highest_ps >= 1e6) return {1e6, "µs"};
  return {1e3, "ns"};
}

// The per-node means of a point, in picoseconds: its PP bar and its CP bar.
double tallest_bar(const std::vector<Series>& series, const Stack& stack) {
  double highest = 0;
  for (const auto& s : series)
    for (const auto* p : s.points) {
      const double nodes = std::max(p->nodes, 1);
      highest =
          std::max({highest, sum(stack.segments(*p, false, nodes)), sum(stack.segments(*p, true, nodes))});
    }
  return highest;
}

struct PanelLayout {
  std::vector<int> nodes;  // one slot each, the same in every panel
  bool has_cp = false;
  Scale y;
  double step = 1;     // between the value axis's grid lines
  double divisor = 1;  // picoseconds per axis unit, times the node count
  std::string unit;    // of the value axis ("ms")
};

// The value axis shared by `series` (a row of panels, or all of them): its unit and ticks.
void set_value_axis(PanelLayout& layout, const std::vector<Series>& series, const Stack& stack) {
  const double tallest = tallest_bar(series, stack);
  const auto [divisor, unit] = time_unit(tallest);
  layout.divisor = divisor;
  layout.unit = unit;
  const auto ticks = figures::nice_ticks(0, std::max(tallest / divisor * 1.05, 1e-9), 5);
  layout.y.low = ticks.low;
  layout.y.high = ticks.high;
  layout.step = ticks.step;
}

void add_panel(Figure& f, SweepFigure& out, const Series& series, const Stack& stack,
               const PanelLayout& layout, const Box& area) {
  f.shapes.emplace_back(
      TextShape{{area.left, area.top - 8}, fit(series.label, area.width + 40, 12), 12, Anchor::Start, true});
  const double slot = area.width / static_cast<double>(layout.nodes.size());
  const double pp_width = slot * (layout.has_cp ? 0.42 : 0.6);
  const double cp_width = slot * 0.3;
  std::vector<double> centres;
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < layout.nodes.size(); ++k) {
    centres.push_back(area.left + slot * (static_cast<double>(k) + 0.5));
    labels.push_back(std::to_string(layout.nodes[k]));
  }
  // Categorical: the slot's index is its position.
  const Scale x{0, static_cast<double>(layout.nodes.size()), area.left, area.right()};
  std::vector<double> slots;
  for (std::size_t k = 0; k < layout.nodes.size(); ++k) slots.push_back(static_cast<double>(k) + 0.5);
  figures::add_x_ticks(f, area, x, slots, labels);
  figures::add_y_grid(f, area, layout.y.low, layout.y.high, layout.step, " " + layout.unit);
  for (const auto* p : series.points) {
    const auto k = static_cast<std::size_t>(std::find(layout.nodes.begin(), layout.nodes.end(), p->nodes) -
                                            layout.nodes.begin());
    const double divisor = layout.divisor * std::max(p->nodes, 1);
    const double left = centres[k] - (layout.has_cp ? (pp_width + cp_width + 2) / 2 : pp_width / 2);
    const auto pp = stack.segments(*p, false, divisor);
    figures::add_stacked_bar(f, left, pp_width, layout.y, pp, "bar");
    double top = layout.y(sum(pp));
    if (layout.has_cp) {
      const auto cp = stack.segments(*p, true, divisor);
      figures::add_stacked_bar(f, left + pp_width + 2, cp_width, layout.y, cp, "bar");
      top = std::min(top, layout.y(sum(cp)));
    }
    top = std::min(top, area.bottom() - 6);
    out.marks.push_back(
        {p->id, {left, top, layout.has_cp ? pp_width + cp_width + 2 : pp_width, area.bottom() - top}});
  }
  // An unfinished point's slot says so (and is where a click on it lands).
  for (const auto* p : series.unfinished) {
    const auto k = static_cast<std::size_t>(std::find(layout.nodes.begin(), layout.nodes.end(), p->nodes) -
                                            layout.nodes.begin());
    const std::string word(to_string(p->status));
    f.shapes.emplace_back(
        TextShape{{centres[k], area.bottom() - 8}, word, 10, Anchor::Middle, false, kWarning});
    const double width = figures::text_width(word, 10);
    out.marks.push_back({p->id, {centres[k] - width / 2, area.bottom() - 20, width, 16}});
  }
  f.shapes.emplace_back(
      TextShape{{area.left + area.width / 2, area.bottom() + 34}, "nodes", 11, Anchor::Middle, false, kGrey});
}

// How many panels a row and how big: the files' 3 columns of 270 x 200 px, or as many as fit the
// size asked for (at least 200 x 120 px each).
struct PanelGrid {
  std::size_t columns = 1;
  std::size_t rows = 1;
  double width = kPanelWidth;
  double height = kPanelHeight;
};

// `wanted`: a column per machine when the panels are a machines x settings grid (0: any).
PanelGrid panel_grid(std::size_t panels, std::size_t wanted, double legend_width, double notes,
                     const FigureSize& size) {
  constexpr double kMinWidth = 200;
  constexpr double kMinHeight = 120;
  PanelGrid g;
  panels = std::max<std::size_t>(panels, 1);
  if (size.width > 0) {
    const double room = size.width - kPanelLeft - kLegendGap - legend_width - kMargin + kPanelGapX;
    const auto fit = std::clamp<std::size_t>(
        static_cast<std::size_t>(std::max(room, 0.0) / (kMinWidth + kPanelGapX)), 1, panels);
    g.columns = wanted > 0 && wanted <= fit ? wanted : fit;
    g.width = std::max(room / static_cast<double>(g.columns) - kPanelGapX, kMinWidth);
  } else {
    g.columns = wanted > 0 ? wanted : std::min(panels, kColumns);
  }
  g.rows = (panels + g.columns - 1) / g.columns;
  if (size.height > 0) {
    const double room = size.height - kPanelTop - 50 - notes + kPanelGapY;
    g.height = std::max(room / static_cast<double>(g.rows) - kPanelGapY, kMinHeight);
  }
  return g;
}

// When every settings has a panel per machine (2 or 3 of them), the panels in rows of settings and a
// column per machine, so that the machines are side by side at equal settings; returns the number
// of columns then (else 0, the order unchanged).
std::size_t machine_columns(std::vector<Series>& series) {
  std::vector<std::string> machines;
  std::vector<std::string> settings;
  for (const auto& s : series) {
    if (std::find(machines.begin(), machines.end(), s.machine) == machines.end())
      machines.push_back(s.machine);
    if (std::find(settings.begin(), settings.end(), s.settings) == settings.end())
      settings.push_back(s.settings);
  }
  if (machines.size() < 2 || machines.size() > kColumns || series.size() != machines.size() * settings.size())
    return 0;
  const auto rank = [](const std::vector<std::string>& order, const std::string& v) {
    return std::find(order.begin(), order.end(), v) - order.begin();
  };
  std::stable_sort(series.begin(), series.end(), [&](const Series& a, const Series& b) {
    return std::pair(rank(settings, a.settings), rank(machines, a.machine)) <
           std::pair(rank(settings, b.settings), rank(machines, b.machine));
  });
  return machines.size();
}

std::vector<figures::LegendEntry> category_legend(const Stack& stack) {
  std::vector<figures::LegendEntry> legend;
  for (const auto& name : stack.names)
    legend.push_back(
        {fmt::format("{} ({})", name, stack.style.at(name).cp ? "CP" : "PP"), stack.style.at(name).colour});
  return legend;
}

}  // namespace

SweepFigure categories_figure(const Sweep& sweep, const std::vector<carnival::CategoryInfo>& styles,
                              FigureSize size) {
  auto series = all_series(sweep);
  const std::size_t wanted_columns = machine_columns(series);
  const Stack stack = stack_of(series, styles);
  const auto legend = category_legend(stack);
  const auto notes = notes_of({left_out_note(sweep)});
  const double legend_width = figures::legend_width(legend);
  const PanelGrid grid = panel_grid(series.size(), wanted_columns, legend_width, notes_height(notes), size);
  const double panels_right =
      kPanelLeft + static_cast<double>(grid.columns) * (grid.width + kPanelGapX) - kPanelGapX;
  const double panels_bottom =
      kPanelTop + static_cast<double>(grid.rows) * (grid.height + kPanelGapY) - kPanelGapY;
  SweepFigure out;
  out.figure =
      blank(panels_right + kLegendGap + legend_width + kMargin, panels_bottom + 50 + notes_height(notes));
  Figure& f = out.figure;
  PanelLayout layout;
  for (const auto& name : stack.names) layout.has_cp = layout.has_cp || stack.style.at(name).cp;
  layout.nodes = node_counts(series, true);
  set_value_axis(layout, series, stack);
  add_title(f, fmt::format("ncp2 sweep {}: where the time went", target_of(sweep)),
            layout.has_cp ? "mean time per node by category; left bar: main processor (PP), right: protocol "
                            "controller (CP)"
                          : "mean time per node by category, main processor (PP)");
  // A row of machines at equal settings shares its own scale (the machines compare within a row;
  // a slow setting does not flatten the others); otherwise every panel has the same.
  const bool row_scales = wanted_columns > 0 && grid.columns == wanted_columns;
  f.shapes.emplace_back(TextShape{{kPanelLeft - 40, 72},
                                  row_scales ? "time per node (each row its own scale)" : "time per node",
                                  12,
                                  Anchor::Start,
                                  true});
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (row_scales && i % grid.columns == 0)
      set_value_axis(
          layout,
          {series.begin() + static_cast<std::ptrdiff_t>(i),
           series.begin() + static_cast<std::ptrdiff_t>(std::min(i + grid.columns, series.size()))},
          stack);
    const std::size_t row = i / grid.columns;
    const std::size_t column = i % grid.columns;
    const Box area{kPanelLeft + static_cast<double>(column) * (grid.width + kPanelGapX),
                   kPanelTop + static_cast<double>(row) * (grid.height + kPanelGapY), grid.width,
                   grid.height};
    layout.y.pixel_low = area.bottom();
    layout.y.pixel_high = area.top;
    add_panel(f, out, series[i], stack, layout, area);
  }
  if (sweep.count(PointStatus::Done) == 0)
    f.shapes.emplace_back(TextShape{
        {kPanelLeft, kPanelTop + 40}, "no finished point to plot", 14, Anchor::Start, false, kWarning});
  figures::add_legend(f, {panels_right + kLegendGap, kPanelTop + 12}, legend);
  add_notes(f, panels_bottom + 62, notes);
  return out;
}

}  // namespace ncp2::sweep
