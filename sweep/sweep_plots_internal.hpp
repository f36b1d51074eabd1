#pragma once
// What both of the sweep's figures use (sweep_plots.cpp: the speedup curves, the files;
// sweep_plots_categories.cpp: the categories per point): the points grouped into series, the
// titles, the notes under a figure, the page's margins and colours.
#include <string>
#include <vector>

#include "figures/figure.hpp"
#include "sweep/sweep_reader.hpp"

namespace ncp2::sweep::plots {

inline constexpr const char* kGrey = "#555555";
inline constexpr const char* kWarning = "#a61b1b";
inline constexpr double kMargin = 20;
inline constexpr double kTitleSize = 16;
inline constexpr double kLegendGap = 30;  // between a plot and its legend

// The points of one machine and settings: those that finished, by node count, and the others.
struct Series {
  std::string label;  // machine and settings: the series' identity
  std::string short_label;
  std::string machine;
  std::string settings;
  std::vector<const SweepPoint*> points;
  std::vector<const SweepPoint*> unfinished;  // failed or not run
};

std::vector<Series> all_series(const Sweep& sweep);
// The --set keys of the sweep when every point has the same ones, in order (else none): the
// legend then names them once, and each curve by its machine and values ("ncp2, 200ns").
std::vector<std::string> common_keys(const Sweep& sweep);
// The node counts of the series' points (with the unfinished ones: `with_unfinished`).
std::vector<int> node_counts(const std::vector<Series>& series, bool with_unfinished);

// A label cut in its middle to about `width` px at `size` (its end tells similar ones apart).
std::string fit(const std::string& text, double width, double size);
std::string target_of(const Sweep& sweep);  // the workload or program, for titles
// "left out: 2 failed, 1 not run (of 16 points)"; empty when every point finished.
std::string left_out_note(const Sweep& sweep);

// A white page of at least `width` x `height` px.
figures::Figure blank(double width, double height);
// The title and a line under it, each cut to the figure's width.
void add_title(figures::Figure& f, const std::string& title, const std::string& subtitle);
// Notes under a plot, one a line, in the warning colour: the empty ones dropped, the height they
// take, and their drawing from the baseline `top`.
std::vector<std::string> notes_of(std::vector<std::string> notes);
double notes_height(const std::vector<std::string>& notes);
void add_notes(figures::Figure& f, double top, const std::vector<std::string>& notes);

}  // namespace ncp2::sweep::plots
