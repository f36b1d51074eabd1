#include "scheduling/figure.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/store_error.hpp"
#include "scheduling/report.hpp"

namespace ncp2::sched {

namespace {

constexpr int kWidth = 1100;
constexpr double kLeft = 80;
constexpr double kRight = 190;  // the legend
constexpr double kPanelHeight = 220;
constexpr double kGap = 70;
constexpr double kTop = 60;
constexpr int kBusBuckets = 50;
// Okabe-Ito, as the counters plot: distinguishable with the common colour-vision deficiencies.
constexpr std::array<const char*, 7> kPalette = {"#000000", "#0072B2", "#D55E00", "#009E73",
                                                 "#CC79A7", "#E69F00", "#56B4E9"};

struct Area {
  double left, top, width, height;
  [[nodiscard]] double bottom() const { return top + height; }
};

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

std::string colour_of(std::size_t policy_index) { return kPalette[policy_index % kPalette.size()]; }

void add_legend(Figure& f, const std::vector<std::string>& policies, double top) {
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const double y = top + 18 * static_cast<double>(i);
    f.shapes.emplace_back(RectShape{{kWidth - kRight + 15, y - 10}, 12, 12, colour_of(i), ""});
    f.shapes.emplace_back(TextShape{{kWidth - kRight + 32, y}, policies[i], 12, Anchor::Start, false});
  }
}

// A frame with horizontal grid lines from `low` to `high` in steps of `step`, labelled.
void add_frame(Figure& f, const Area& a, double low, double high, double step, const std::string& unit) {
  for (double v = low; v <= high + step / 2; v += step) {
    const double y = a.bottom() - (v - low) / (high - low) * a.height;
    f.shapes.emplace_back(LineShape{{{a.left, y}, {a.left + a.width, y}}, v == 0 ? "#888888" : "#dddddd", 1});
    f.shapes.emplace_back(
        TextShape{{a.left - 6, y + 4}, fmt::format("{:g}{}", v, unit), 11, Anchor::End, false});
  }
  f.shapes.emplace_back(RectShape{{a.left, a.top}, a.width, a.height, "", "#000000"});
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
  add_frame(f, a, low, high, step, "%");
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
  add_frame(f, a, 0, 100, 25, "%");
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

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

struct SvgWriter {
  std::string& out;
  void operator()(const LineShape& l) const {
    std::string points;
    for (const auto& p : l.points) points += fmt::format("{:.1f},{:.1f} ", p.x, p.y);
    out += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"/>)", points,
                       l.colour, l.width) +
           "\n";
  }
  void operator()(const RectShape& r) const {
    out +=
        fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="{}"/>)",
                    r.corner.x, r.corner.y, r.width, r.height, r.fill.empty() ? "none" : r.fill,
                    r.stroke.empty() ? "none" : r.stroke) +
        "\n";
  }
  void operator()(const TextShape& t) const {
    const char* anchor =
        t.anchor == Anchor::Start ? "start" : (t.anchor == Anchor::Middle ? "middle" : "end");
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{}" text-anchor="{}"{}>{}</text>)", t.at.x,
                       t.at.y, t.size, anchor, t.bold ? R"( font-weight="bold")" : "", escape(t.text)) +
           "\n";
  }
};

}  // namespace

Figure experiment_figure(const Experiment& experiment) {
  std::vector<std::string> sets;
  for (const auto& r : experiment.rows)
    if (std::find(sets.begin(), sets.end(), r.set) == sets.end()) sets.push_back(r.set);
  if (sets.empty()) throw PlotError("nothing to plot: the experiment has no result");
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

std::string figure_svg(const Figure& figure) {
  std::string out =
      fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                  R"(font-family="DejaVu Sans, sans-serif">)"
                  "\n",
                  figure.width, figure.height);
  for (const auto& shape : figure.shapes) std::visit(SvgWriter{out}, shape);
  return out + "</svg>\n";
}

std::string check_plot_path(const std::string& path) {
  if (path.ends_with(".svg")) return "";
  if (!path.ends_with(".png")) return fmt::format("--plot {}: the file name must end in .png or .svg", path);
  if (!png_available())
    return fmt::format("--plot {}: this ncp2 was built without Qt 6, so it cannot draw PNG plots (use .svg)",
                       path);
  return "";
}

void write_figure(const Figure& figure, const std::string& path) {
  if (const std::string problem = check_plot_path(path); !problem.empty()) throw PlotError(problem);
  if (path.ends_with(".png")) return write_figure_png(figure, path);
  try {
    carnival::write_file_atomically(path, [&](std::ostream& out) { out << figure_svg(figure); });
  } catch (const carnival::StoreError& e) {
    throw PlotError(e.what());
  }
}

}  // namespace ncp2::sched
