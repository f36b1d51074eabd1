#include "scheduling/figure.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "figures/chart.hpp"
#include "scheduling/report.hpp"

namespace ncp2::sched {

namespace {

using figures::Anchor;
using figures::Figure;
using figures::LineShape;
using figures::RectShape;
using figures::TextShape;
using Area = figures::Box;

constexpr int kWidth = 1100;
constexpr double kLeft = 80;
constexpr double kRight = 190;  // the legend
constexpr double kPanelHeight = 220;
constexpr double kGap = 70;
constexpr double kTop = 60;
constexpr int kBusBuckets = 50;
// The set's applications, or its policies (the baseline's row, 0 % by definition, left out).
std::vector<std::string> distinct(const Experiment& e, const std::string& set, bool applications) {
  std::vector<std::string> out;
  for (const auto& r : e.rows) {
    if (r.set != set || (!applications && r.policy == r.baseline)) continue;
    const std::string& v = applications ? r.application : r.policy;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

std::string colour_of(std::size_t policy_index) { return figures::palette_colour(policy_index); }

void add_legend(Figure& f, const std::vector<std::string>& policies, double top) {
  std::vector<figures::LegendEntry> entries;
  for (std::size_t i = 0; i < policies.size(); ++i) entries.push_back({policies[i], colour_of(i)});
  figures::add_legend(f, {kWidth - kRight + 15, top}, entries);
}

// Improvement over the baseline: one group of bars per application, one bar per policy.
void add_improvement_panel(Figure& f, const Experiment& e, const std::string& set, const Area& a) {
  const auto applications = distinct(e, set, true);
  const auto policies = distinct(e, set, false);
  double low = 0;
  double high = 10;
  for (const auto& r : e.rows)
    if (r.set == set) {
      low = std::min(low, r.improvement_pct);
      high = std::max(high, r.improvement_pct);
    }
  const double step = high - low > 100 ? 25 : (high - low > 40 ? 10 : 5);
  low = std::floor(low / step) * step;
  high = std::ceil(high / step) * step;
  f.shapes.emplace_back(TextShape{
      {a.left, a.top - 8},
      fmt::format("set {}: improvement over {}", set, e.rows.empty() ? "" : e.rows.front().baseline),
      14,
      Anchor::Start,
      true});
  figures::add_y_grid(f, a, low, high, step, "%");
  const double group = a.width / static_cast<double>(std::max<std::size_t>(applications.size(), 1));
  const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(policies.size(), 1));
  const auto y_of = [&](double v) { return a.bottom() - (v - low) / (high - low) * a.height; };
  for (std::size_t g = 0; g < applications.size(); ++g) {
    const double x0 = a.left + group * static_cast<double>(g) + group * 0.1;
    for (std::size_t p = 0; p < policies.size(); ++p)
      for (const auto& r : e.rows)
        if (r.set == set && r.application == applications[g] && r.policy == policies[p]) {
          const double top = std::min(y_of(r.improvement_pct), y_of(0));
          const double height = std::max(std::fabs(y_of(r.improvement_pct) - y_of(0)), 1.0);
          f.shapes.emplace_back(
              RectShape{{x0 + bar * static_cast<double>(p), top}, bar * 0.9, height, colour_of(p), ""});
        }
    f.shapes.emplace_back(
        TextShape{{x0 + group * 0.4, a.bottom() + 16}, applications[g], 12, Anchor::Middle, false});
  }
  add_legend(f, policies, a.top + 10);
}

// Bus utilization per quantum of the set's first application, one line per policy.
void add_bus_panel(Figure& f, const Experiment& e, const std::string& set, const Area& a) {
  const auto applications = distinct(e, set, true);
  const auto policies = distinct(e, set, false);
  if (applications.empty()) return;
  double end = 0;
  for (const auto& b : e.bus)
    if (b.set == set && b.application == applications.front() && !b.samples.empty() &&
        std::find(policies.begin(), policies.end(), b.policy) != policies.end())
      end = std::max(end, to_seconds(b.samples.back().start + b.samples.back().length));
  if (end <= 0) end = 1;
  f.shapes.emplace_back(
      TextShape{{a.left, a.top - 8},
                fmt::format("set {}: bus utilization (served / capacity, fiftieths of each run), {}", set,
                            applications.front()),
                14,
                Anchor::Start,
                true});
  figures::add_y_grid(f, a, 0, 100, 25, "%");
  f.shapes.emplace_back(
      TextShape{{a.left + a.width, a.bottom() + 16}, fmt::format("{:.1f} s", end), 11, Anchor::End, false});
  for (std::size_t p = 0; p < policies.size(); ++p)
    for (const auto& b : e.bus) {
      if (b.set != set || b.application != applications.front() || b.policy != policies[p] ||
          b.samples.empty())
        continue;
      // Averaged over fiftieths of the run: per quantum the lines would hide one another.
      LineShape line{{}, colour_of(p), 1.4};
      const double run_end = to_seconds(b.samples.back().start + b.samples.back().length);
      const auto profile = utilization_profile(b, kBusBuckets);
      for (int k = 0; k < kBusBuckets; ++k) {
        const double y = a.bottom() - std::min(profile[k], 1.02) * a.height;
        line.points.push_back({a.left + run_end * k / kBusBuckets / end * a.width, y});
        line.points.push_back({a.left + run_end * (k + 1) / kBusBuckets / end * a.width, y});
      }
      f.shapes.emplace_back(std::move(line));
    }
}

}  // namespace

Figure experiment_figure(const Experiment& experiment) {
  std::vector<std::string> sets;
  for (const auto& r : experiment.rows)
    if (std::find(sets.begin(), sets.end(), r.set) == sets.end()) sets.push_back(r.set);
  if (sets.empty()) throw figures::PlotError("nothing to plot: the experiment has no result");
  Figure f;
  f.width = kWidth;
  f.height = static_cast<int>(kTop + static_cast<double>(sets.size()) * 2 * (kPanelHeight + kGap));
  f.shapes.emplace_back(
      RectShape{{0, 0}, static_cast<double>(f.width), static_cast<double>(f.height), "#ffffff", ""});
  const NodeOptions& o = experiment.options;
  f.shapes.emplace_back(
      TextShape{{kLeft, 28},
                fmt::format("ncp2 schedule: {} processors, bus {:g} transactions/us, quantum {:g} ms, "
                            "window {}",
                            o.processors, o.capacity.per_us(), to_microseconds(o.quantum) / 1000, o.window),
                16,
                Anchor::Start,
                true});
  double top = kTop + 20;
  for (const auto& set : sets) {
    add_improvement_panel(f, experiment, set, {kLeft, top, kWidth - kLeft - kRight, kPanelHeight});
    top += kPanelHeight + kGap;
    add_bus_panel(f, experiment, set, {kLeft, top, kWidth - kLeft - kRight, kPanelHeight});
    top += kPanelHeight + kGap;
  }
  return f;
}

}  // namespace ncp2::sched
