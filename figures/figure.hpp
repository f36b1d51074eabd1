#pragma once
// A figure as a list of drawing primitives, so that one layout gives every output: SVG written as
// text, PNG drawn with Qt 6 Gui (QPainter on a QImage, offscreen), and the GUI's widgets painting
// the same shapes (figures/figure_painter.hpp). Coordinates are pixels of the figure, y downwards.
// Used by `ncp2 schedule --plot` and the sweep's plots (`ncp2 sweep`, the GUI's sweep view).
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ncp2::figures {

struct Point {
  double x = 0;
  double y = 0;
};

enum class Anchor { Start, Middle, End };

// `tag` becomes the SVG element's class (empty: none), so that a reader of the SVG (a test, a
// style sheet) can tell a data curve from a grid line. The constructors give the optional members
// their defaults (brace-initialized aggregates would warn about each one left out).
struct LineShape {
  LineShape(std::vector<Point> points_, std::string colour_, double width_ = 1, bool dashed_ = false,
            std::string tag_ = {})
      : points(std::move(points_)),
        colour(std::move(colour_)),
        width(width_),
        dashed(dashed_),
        tag(std::move(tag_)) {}
  std::vector<Point> points;  // a polyline
  std::string colour;
  double width;
  bool dashed;
  std::string tag;
};
struct RectShape {
  RectShape(Point corner_, double width_, double height_, std::string fill_, std::string stroke_,
            std::string tag_ = {})
      : corner(corner_),
        width(width_),
        height(height_),
        fill(std::move(fill_)),
        stroke(std::move(stroke_)),
        tag(std::move(tag_)) {}
  Point corner;  // top left
  double width;
  double height;
  std::string fill;    // "" for none
  std::string stroke;  // "" for none
  std::string tag;
};
struct TextShape {
  TextShape(Point at_, std::string text_, double size_ = 13, Anchor anchor_ = Anchor::Start,
            bool bold_ = false, std::string colour_ = {})
      : at(at_),
        text(std::move(text_)),
        size(size_),
        anchor(anchor_),
        bold(bold_),
        colour(std::move(colour_)) {}
  Point at;  // baseline
  std::string text;
  double size;
  Anchor anchor;
  bool bold;
  std::string colour;  // "" for black
};
// A data point's marker.
struct CircleShape {
  CircleShape(Point centre_, double radius_, std::string fill_, std::string stroke_, std::string tag_ = {})
      : centre(centre_),
        radius(radius_),
        fill(std::move(fill_)),
        stroke(std::move(stroke_)),
        tag(std::move(tag_)) {}
  Point centre;
  double radius;
  std::string fill;    // "" for none
  std::string stroke;  // "" for none
  std::string tag;
};
using Shape = std::variant<LineShape, RectShape, TextShape, CircleShape>;

struct Figure {
  int width = 0;
  int height = 0;
  std::vector<Shape> shapes;
};

class PlotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string figure_svg(const Figure& figure);
// Was this build made with Qt 6 Gui (can it draw PNG)?
bool png_available();
// Writes the PNG atomically. Throws PlotError (no Qt, cannot write).
void write_figure_png(const Figure& figure, const std::string& path);

// By the extension of `path` (.svg or .png), atomically. Throws PlotError.
void write_figure(const Figure& figure, const std::string& path);
// Why `path` cannot be a plot ("" if it can): the extension, Qt for PNG.
std::string check_plot_path(const std::string& path);

// Roughly how wide `text` is at `size` px in DejaVu Sans (an SVG has no font metrics: layouts use
// this to keep labels apart; it errs on the wide side).
double text_width(const std::string& text, double size);
// `text` cut with an ellipsis to about `width` px at `size` (unchanged when it fits): at its end,
// or in its middle, which keeps what tells similar labels apart ("ncp2, net…latency=10us").
enum class Elide { End, Middle };
std::string fit_text(const std::string& text, double width, double size, Elide elide = Elide::End);

}  // namespace ncp2::figures
