// The plot in a build without Qt 6: a clear refusal (configure with qt6-base-dev installed, see
// cmake/install-deps.sh gui).
#include "perf_counters/plot.hpp"

namespace ncp2::counters {

bool plot_available() { return false; }

void plot_rates_png(const CounterRun&, const std::string& path) {
  throw PlotError(path +
                  ": cannot plot: this ncp2 was built without Qt 6 (install qt6-base-dev, e.g. "
                  "`bash cmake/install-deps.sh gui`, and configure again)");
}

}  // namespace ncp2::counters
