// The PNG plot with Qt 6 Gui: QPainter on a QImage under the offscreen platform.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <QFont>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QString>

#include "perf_counters/offscreen_qt.hpp"

#include "perf_counters/plot.hpp"
#include "perf_counters/series.hpp"

namespace ncp2::counters {

namespace {

constexpr int kWidth = 1100;
constexpr int kPanelHeight = 190;
constexpr int kTitleHeight = 74;  // two title lines and a note when the run is too short
constexpr int kLeft = 96;
constexpr int kRight = 24;
constexpr int kPanelGap = 46;  // x tick labels and the next panel's name
constexpr int kNoteLine = 18;
// Okabe-Ito: distinguishable with the common colour-vision deficiencies.
constexpr std::array<const char*, 7> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                 "#E69F00", "#56B4E9", "#000000"};

// 1, 2, 5 x 10^k steps giving about `target` intervals over [0, top].
double nice_step(double top, int target) {
  if (top <= 0) return 1;
  const double raw = top / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

QString number_label(double v) {
  const double a = std::fabs(v);
  std::string s;
  if (a >= 1e9)
    s = fmt::format("{:g}G", v / 1e9);
  else if (a >= 1e6)
    s = fmt::format("{:g}M", v / 1e6);
  else if (a >= 1e3)
    s = fmt::format("{:g}k", v / 1e3);
  else
    s = fmt::format("{:g}", v);
  return QString::fromStdString(s);
}

struct Step {
  double t0, t1, rate;
  bool late;
};

// The time axis, the same for every panel: 0 to `top` seconds in ticks of `step`.
struct TimeAxis {
  double step = 1;
  double top = 1;
};

TimeAxis time_axis(const std::vector<SampleRow>& rows) {
  double t_end = 0;
  for (const auto& r : rows) t_end = std::max(t_end, r.t_s);
  if (t_end <= 0) t_end = 1e-3;
  const double x_step = nice_step(t_end, 10);
  return {x_step, std::ceil(t_end / x_step) * x_step};
}

// One event's steps (rate per second, or CPUs for a clock event) and the top of its scale.
struct PanelSteps {
  std::vector<Step> steps;
  double y_max = 0;
};

PanelSteps panel_steps(const std::vector<SampleRow>& rows, std::size_t g, bool clock) {
  PanelSteps out;
  double y_max_late = 0;
  for (const auto& r : rows) {
    const auto rate = rate_per_second(r.points.at(g), r.dt_ms);
    if (!rate) continue;
    const double y = clock ? *rate / 1e9 : *rate;
    out.steps.push_back({r.t_s - r.dt_ms / 1e3, r.t_s, y, r.late});
    double& top_so_far = r.late ? y_max_late : out.y_max;
    top_so_far = std::max(top_so_far, y);
  }
  // Rows read late have an uncertain rate: as in the paper's parser they do not set the scale;
  // they are drawn in grey, clipped to the panel.
  if (out.y_max <= 0) out.y_max = y_max_late;
  if (out.y_max <= 0) out.y_max = 1.0;
  return out;
}

// A panel's rectangle and scales: maps (time, value) to pixels.
struct Panel {
  QRect area;
  TimeAxis x;
  double y_step = 1;
  double y_top = 1;
  [[nodiscard]] double x_of(double t) const { return area.left() + t / x.top * area.width(); }
  [[nodiscard]] double y_of(double v) const { return area.bottom() - v / y_top * area.height(); }
};

// The title lines: the command, then the period and the sample counts.
void draw_title(QPainter& p, const QFont& font, const CounterRun& run) {
  std::string command;
  for (const auto& a : run.command) command += (command.empty() ? "" : " ") + a;
  if (command.size() > 90) command = command.substr(0, 87) + "...";
  QFont title_font = font;
  title_font.setPixelSize(16);
  title_font.setBold(true);
  p.setFont(title_font);
  p.drawText(kLeft, 24, QString::fromStdString(fmt::format("ncp2 counters: {}", command)));
  p.setFont(font);
  p.drawText(
      kLeft, 44,
      QString::fromStdString(fmt::format("rate per period over wall time; period {} ms; {} sample(s), {} "
                                         "repeated dropped, {} late (grey); {}",
                                         static_cast<double>(run.period.count()) / 1e6, run.samples.size(),
                                         run.samples_dropped, run.samples_late, run.exit_description)));
  if (const std::string short_run = too_short_to_plot(run); !short_run.empty()) {
    p.setPen(QColor("#b00020"));
    p.drawText(kLeft, 62, QString::fromStdString(short_run));
    p.setPen(Qt::black);
  }
}

// A panel's name above it, its grid, frame and tick labels.
void draw_frame(QPainter& p, const Panel& panel, const std::string& name) {
  const QRect& area = panel.area;
  p.setPen(Qt::black);
  p.drawText(kLeft, area.top() - 5, QString::fromStdString(name));
  // Grid and ticks.
  p.setPen(QPen(QColor("#dddddd"), 1));
  for (double v = 0; v <= panel.y_top + panel.y_step / 2; v += panel.y_step)
    p.drawLine(QPointF(area.left(), panel.y_of(v)), QPointF(area.right(), panel.y_of(v)));
  for (double t = 0; t <= panel.x.top + panel.x.step / 2; t += panel.x.step)
    p.drawLine(QPointF(panel.x_of(t), area.top()), QPointF(panel.x_of(t), area.bottom()));
  p.setPen(Qt::black);
  p.drawRect(area);
  for (double v = 0; v <= panel.y_top + panel.y_step / 2; v += panel.y_step)
    p.drawText(QRectF(0, panel.y_of(v) - 8, kLeft - 8, 16), Qt::AlignRight | Qt::AlignVCenter,
               number_label(v));
  for (double t = 0; t <= panel.x.top + panel.x.step / 2; t += panel.x.step)
    p.drawText(QRectF(panel.x_of(t) - 40, area.bottom() + 3, 80, 16), Qt::AlignHCenter | Qt::AlignTop,
               QString::fromStdString(fmt::format("{:g} s", t)));
}

// The steps, clipped to the panel: in the panel's colour, the late ones in grey.
void draw_steps(QPainter& p, const Panel& panel, const std::vector<Step>& steps, const char* colour) {
  p.save();
  p.setClipRect(panel.area);
  QPainterPath line;
  QPainterPath late_line;
  bool started = false;
  double previous_y = panel.y_of(0);
  for (const auto& s : steps) {
    const double y = panel.y_of(std::min(s.rate, panel.y_top * 1.02));
    if (s.late) {
      // The late step in grey; the coloured line resumes at the next step.
      late_line.moveTo(panel.x_of(s.t0), y);
      late_line.lineTo(panel.x_of(s.t1), y);
      line.moveTo(panel.x_of(s.t1), previous_y);
    } else {
      if (!started)
        line.moveTo(panel.x_of(s.t0), y);
      else
        line.lineTo(panel.x_of(s.t0), y);
      line.lineTo(panel.x_of(s.t1), y);
      previous_y = y;
    }
    started = true;
  }
  p.setPen(QPen(QColor("#b0b0b0"), 1.2));
  p.drawPath(late_line);
  p.setPen(QPen(QColor(colour), 1.6));
  p.drawPath(line);
  p.restore();
}

// Panel k: event e's rate over time.
void draw_panel(QPainter& p, const std::vector<SampleRow>& rows, const TimeAxis& x, const EventStatus& e,
                std::size_t k) {
  const bool clock = e.unit == "ns";
  const PanelSteps data = panel_steps(rows, static_cast<std::size_t>(e.group_index), clock);
  Panel panel;
  panel.x = x;
  panel.y_step = nice_step(data.y_max * 1.05, 4);
  panel.y_top = std::ceil(data.y_max * 1.05 / panel.y_step) * panel.y_step;
  const int top = kTitleHeight + static_cast<int>(k) * (kPanelHeight + kPanelGap) + 18;
  panel.area = QRect(kLeft, top, kWidth - kLeft - kRight, kPanelHeight);
  draw_frame(p, panel, clock ? fmt::format("{} (CPUs)", e.name) : fmt::format("{} per second", e.name));
  draw_steps(p, panel, data.steps, kPalette[k % kPalette.size()]);
}

// Below the panels: one line per event that was not counted, with the reason.
void draw_missing(QPainter& p, std::size_t panels, const std::vector<const EventStatus*>& missing) {
  int y = kTitleHeight + static_cast<int>(panels) * (kPanelHeight + kPanelGap) + 6;
  p.setPen(QColor("#444444"));
  for (const auto* e : missing) {
    std::string text = fmt::format("not counted: {}: {}", e->name, e->reason);
    if (text.size() > 150) text = text.substr(0, 147) + "...";
    p.drawText(kLeft, y, QString::fromStdString(text));
    y += kNoteLine;
  }
}

}  // namespace

bool plot_available() { return true; }

void plot_rates_png(const CounterRun& run, const std::string& path) {
  std::vector<const EventStatus*> counted;
  std::vector<const EventStatus*> missing;
  for (const auto& e : run.events) (e.available ? counted : missing).push_back(&e);
  if (counted.empty()) throw PlotError(fmt::format("{}: nothing to plot: no event was counted", path));

  counters::ensure_offscreen_gui_application();
  const auto rows = sample_rows(run);
  const TimeAxis x = time_axis(rows);

  const int height = kTitleHeight + static_cast<int>(counted.size()) * (kPanelHeight + kPanelGap) +
                     static_cast<int>(missing.size() + 1) * kNoteLine + 10;
  QImage image(kWidth, height, QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  QFont font("DejaVu Sans");
  font.setPixelSize(13);
  p.setFont(font);

  draw_title(p, font, run);
  for (std::size_t k = 0; k < counted.size(); ++k) draw_panel(p, rows, x, *counted[k], k);
  draw_missing(p, counted.size(), missing);
  p.end();
  if (const std::string problem = save_png_atomically(image, path); !problem.empty())
    throw PlotError(problem);
}

}  // namespace ncp2::counters
