#pragma once
// The plot of an experiment (`ncp2 schedule --plot`), as a list of drawing primitives so that
// one layout gives both files: SVG written as text, PNG drawn with Qt 6 Gui (QPainter on a
// QImage, offscreen). Per set: the improvement of each policy over native per application
// (bars), and the bus utilization over time of the set's first application under each policy.
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "scheduling/experiment.hpp"

namespace ncp2::sched {

struct Point {
  double x = 0;
  double y = 0;
};

enum class Anchor { Start, Middle, End };

struct LineShape {
  std::vector<Point> points;  // a polyline
  std::string colour;
  double width = 1;
};
struct RectShape {
  Point corner;  // top left
  double width = 0;
  double height = 0;
  std::string fill;    // "" for none
  std::string stroke;  // "" for none
};
struct TextShape {
  Point at;  // baseline
  std::string text;
  double size = 13;
  Anchor anchor = Anchor::Start;
  bool bold = false;
};
using Shape = std::variant<LineShape, RectShape, TextShape>;

struct Figure {
  int width = 0;
  int height = 0;
  std::vector<Shape> shapes;
};

class PlotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Figure experiment_figure(const Experiment& experiment);

std::string figure_svg(const Figure& figure);
// Was this build made with Qt 6 Gui (can it draw PNG)?
bool png_available();
// Writes the PNG atomically. Throws PlotError (no Qt, cannot write).
void write_figure_png(const Figure& figure, const std::string& path);

// By the extension of `path` (.svg or .png), atomically. Throws PlotError.
void write_figure(const Figure& figure, const std::string& path);
// Why `path` cannot be a plot ("" if it can): the extension, Qt for PNG.
std::string check_plot_path(const std::string& path);

}  // namespace ncp2::sched
