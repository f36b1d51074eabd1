#pragma once
// The sweep's plots, drawn with figures/ (one layout: SVG, PNG, and the GUI's sweep view painting
// the same shapes): the speedup over one node against the node count (log2), one curve per
// machine and settings; and where the time went, the CARNIVAL categories stacked per point, one
// panel per machine and settings. Points that failed or did not run are left out, and each figure
// says how many.
#include <cstdint>
#include <string>
#include <vector>

#include "carnival/model.hpp"
#include "figures/chart.hpp"
#include "figures/figure.hpp"
#include "sweep/sweep_reader.hpp"

namespace ncp2::sweep {

// Where a point is drawn (its marker, or its bars), so that the GUI can map a click to it.
struct PointMark {
  std::int64_t point_id = 0;
  figures::Box box;
};
struct SweepFigure {
  figures::Figure figure;
  std::vector<PointMark> marks;
};

// The size a figure should take, in pixels; 0: the size of the files (a widget asks for its own,
// so that the text keeps its size and the plot takes the room).
struct FigureSize {
  double width = 0;
  double height = 0;
};

SweepFigure speedup_figure(const Sweep& sweep, FigureSize size = {});
// `styles`: the categories' colours (category_styles(sweep)).
SweepFigure categories_figure(const Sweep& sweep, const std::vector<carnival::CategoryInfo>& styles,
                              FigureSize size = {});

// Reads DIR/sweep.db and writes DIR/speedup.svg and DIR/categories.svg and, when this build draws
// PNG, their .png twins, each atomically. Returns the files written. Throws carnival::StoreError
// (the sweep cannot be read) or figures::PlotError (a file cannot be written).
std::vector<std::string> write_sweep_plots(const std::string& sweep_dir);

}  // namespace ncp2::sweep
