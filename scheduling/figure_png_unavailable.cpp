// Built without Qt 6 Gui: the figure can still be written as SVG, not as PNG.
#include "scheduling/figure.hpp"

namespace ncp2::sched {

bool png_available() { return false; }

void write_figure_png(const Figure&, const std::string& path) {
  throw PlotError(path + ": this ncp2 was built without Qt 6, so it cannot draw PNG plots (use .svg)");
}

}  // namespace ncp2::sched
