#pragma once
// The plot of an experiment (`ncp2 schedule --plot`), drawn with figures/ (one layout, SVG and
// PNG). Per set: the improvement of each policy over native per application (bars), and the bus
// utilization over time of the set's first application under each policy.
#include "figures/figure.hpp"
#include "scheduling/experiment.hpp"

namespace ncp2::sched {

// Throws figures::PlotError when the experiment has no result.
figures::Figure experiment_figure(const Experiment& experiment);

}  // namespace ncp2::sched
