#pragma once
// Drawing a figure's shapes with a QPainter: the PNG writer (figure_png_qt.cpp) and the GUI's
// widgets (the sweep view's plot) paint the same primitives the SVG writer writes. Include only
// from sources built with Qt 6 Gui.
#include <QPainter>

#include "figures/figure.hpp"

namespace ncp2::figures {

// Every shape of `figure` in figure coordinates (the caller's transform scales them).
void paint_figure(QPainter& painter, const Figure& figure);

}  // namespace ncp2::figures
