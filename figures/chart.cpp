#include "figures/chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace ncp2::figures {

namespace {

constexpr std::array<const char*, 7> kPalette = {"#000000", "#0072B2", "#D55E00", "#009E73",
                                                 "#CC79A7", "#E69F00", "#56B4E9"};
constexpr double kLegendSize = 12;
constexpr double kLegendSpacing = 18;
constexpr double kSwatch = 12;
constexpr double kLineMark = 24;  // long enough to show a dash pattern

double mark_width(LegendMark mark) { return mark == LegendMark::Swatch ? kSwatch : kLineMark; }

}  // namespace

std::string palette_colour(std::size_t index) { return kPalette[index % kPalette.size()]; }

double Scale::operator()(double value) const {
  const auto position = [this](double v) { return log2 ? std::log2(v) : v; };
  const double span = position(high) - position(low);
  if (span == 0) return (pixel_low + pixel_high) / 2;
  return pixel_low + (position(value) - position(low)) / span * (pixel_high - pixel_low);
}

Ticks nice_ticks(double low, double high, int max_ticks) {
  if (!(high > low)) high = low + 1;
  const double rough = (high - low) / std::max(max_ticks - 1, 1);
  const double decade = std::pow(10.0, std::floor(std::log10(rough)));
  double step = 10 * decade;
  for (const double m : {1.0, 2.0, 5.0})
    if (m * decade >= rough) {
      step = m * decade;
      break;
    }
  return {std::floor(low / step) * step, std::ceil(high / step) * step, step};
}

void add_y_grid(Figure& f, const Box& a, double low, double high, double step, const std::string& unit) {
  for (double v = low; v <= high + step / 2; v += step) {
    const double y = a.bottom() - (v - low) / (high - low) * a.height;
    f.shapes.emplace_back(LineShape{{{a.left, y}, {a.left + a.width, y}}, v == 0 ? "#888888" : "#dddddd", 1});
    f.shapes.emplace_back(
        TextShape{{a.left - 6, y + 4}, fmt::format("{:g}{}", v, unit), 11, Anchor::End, false});
  }
  f.shapes.emplace_back(RectShape{{a.left, a.top}, a.width, a.height, "", "#000000"});
}

void add_x_ticks(Figure& f, const Box& a, const Scale& x, const std::vector<double>& values,
                 const std::vector<std::string>& labels) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double at = x(values[i]);
    f.shapes.emplace_back(LineShape{{{at, a.top}, {at, a.bottom()}}, "#eeeeee", 1});
    f.shapes.emplace_back(LineShape{{{at, a.bottom()}, {at, a.bottom() + 5}}, "#000000", 1});
    f.shapes.emplace_back(
        TextShape{{at, a.bottom() + 18}, i < labels.size() ? labels[i] : "", 11, Anchor::Middle});
  }
}

void add_legend(Figure& f, Point at, const std::vector<LegendEntry>& entries) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    const double y = at.y + kLegendSpacing * static_cast<double>(i);
    if (e.mark == LegendMark::Swatch) {
      f.shapes.emplace_back(RectShape{{at.x, y - 10}, kSwatch, kSwatch, e.colour, ""});
    } else {
      f.shapes.emplace_back(LineShape{{{at.x, y - 4}, {at.x + kLineMark, y - 4}}, e.colour, 2, e.dashed});
      if (e.mark == LegendMark::LineAndMarker)
        f.shapes.emplace_back(CircleShape{{at.x + kLineMark / 2, y - 4}, 3, e.colour, e.colour});
    }
    f.shapes.emplace_back(
        TextShape{{at.x + mark_width(e.mark) + 5, y}, e.label, kLegendSize, Anchor::Start, false});
  }
}

double legend_width(const std::vector<LegendEntry>& entries) {
  double widest = 0;
  for (const auto& e : entries)
    widest = std::max(widest, mark_width(e.mark) + 5 + text_width(e.label, kLegendSize));
  return widest;
}

void add_stacked_bar(Figure& f, double left, double width, const Scale& y,
                     const std::vector<Segment>& segments, const std::string& tag) {
  double base = 0;
  for (const auto& s : segments) {
    if (s.value <= 0) continue;
    const double bottom = y(base);
    const double top = y(base + s.value);
    f.shapes.emplace_back(RectShape{{left, top}, width, bottom - top, s.colour, "", tag});
    base += s.value;
  }
}

}  // namespace ncp2::figures
