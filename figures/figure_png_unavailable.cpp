// Built without Qt 6 Gui: a figure can still be written as SVG, not as PNG.
#include "figures/figure.hpp"

namespace ncp2::figures {

bool png_available() { return false; }

void write_figure_png(const Figure&, const std::string& path) {
  throw PlotError(path + ": this ncp2 was built without Qt 6, so it cannot draw PNG plots (use .svg)");
}

}  // namespace ncp2::figures
