#pragma once
// Chart parts on top of figures/figure.hpp, shared by the plots of `ncp2 schedule` and of
// `ncp2 sweep` (and so by the GUI, which paints the same figures): the plotting area, linear and
// base-2 logarithmic scales, grid lines with labelled ticks, a legend, stacked bars, the palette.
#include <cstddef>
#include <string>
#include <vector>

#include "figures/figure.hpp"

namespace ncp2::figures {

// A rectangle of the figure, in pixels.
struct Box {
  double left = 0;
  double top = 0;
  double width = 0;
  double height = 0;
  [[nodiscard]] double right() const { return left + width; }
  [[nodiscard]] double bottom() const { return top + height; }
  [[nodiscard]] bool contains(Point p) const {
    return p.x >= left && p.x <= right() && p.y >= top && p.y <= bottom();
  }
};

// Okabe-Ito: distinguishable with the common colour-vision deficiencies (as the counters plot).
std::string palette_colour(std::size_t index);

// Maps data values onto pixels between `pixel_low` (where `low` goes) and `pixel_high`; with
// `log2`, equal ratios take equal room (node counts 1, 2, 4, 8 evenly spaced). Values out of the
// domain map beyond the ends; a log scale needs low > 0.
struct Scale {
  double low = 0;
  double high = 1;
  double pixel_low = 0;
  double pixel_high = 1;
  bool log2 = false;
  [[nodiscard]] double operator()(double value) const;
};

// Round tick positions covering [low, high]: a step of 1, 2 or 5 times a power of ten, at most
// about `max_ticks` of them; `low` and `high` widened to whole steps.
struct Ticks {
  double low = 0;
  double high = 1;
  double step = 1;
};
Ticks nice_ticks(double low, double high, int max_ticks = 8);

// A frame around `area` with horizontal grid lines from `low` to `high` every `step`, each
// labelled on the left with its value and `unit` ("25%"); the line at zero darker.
void add_y_grid(Figure& f, const Box& area, double low, double high, double step, const std::string& unit);

// Ticks under `area` at `values` (by `x`), each with its label, and light vertical grid lines.
void add_x_ticks(Figure& f, const Box& area, const Scale& x, const std::vector<double>& values,
                 const std::vector<std::string>& labels);

enum class LegendMark { Swatch, Line, LineAndMarker };
struct LegendEntry {
  std::string label;
  std::string colour;
  LegendMark mark = LegendMark::Swatch;
  bool dashed = false;  // the line of a Line or LineAndMarker
};
// Entries one under the other from `top_left` (the first entry's mark), 18 px apart at 12 px.
void add_legend(Figure& f, Point top_left, const std::vector<LegendEntry>& entries);
// The width the legend needs (mark and longest label).
double legend_width(const std::vector<LegendEntry>& entries);

// A bar of `width` from value 0 upwards at `left`, one segment per value (bottom first) in its
// colour; zero-height segments are skipped. `y` maps values to pixels.
struct Segment {
  double value = 0;
  std::string colour;
};
void add_stacked_bar(Figure& f, double left, double width, const Scale& y,
                     const std::vector<Segment>& segments, const std::string& tag);

}  // namespace ncp2::figures
