#pragma once
// The PNG plot of a counter run: one panel per counted event, its rate over wall time (CPUs for
// the clock events), step by step as sampled. Drawn with QPainter on a QImage (Qt 6 Gui,
// offscreen: no display needed); a build without Qt reports that instead of drawing.
#include <stdexcept>
#include <string>

#include "perf_counters/model.hpp"

namespace ncp2::counters {

class PlotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Was this build made with Qt 6 (can it draw)?
bool plot_available();

// Writes the PNG atomically (a temporary file renamed over `path`). Throws PlotError: built
// without Qt, no event counted, the file cannot be written.
void plot_rates_png(const CounterRun& run, const std::string& path);

}  // namespace ncp2::counters
