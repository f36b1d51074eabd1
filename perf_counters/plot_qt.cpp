// The PNG plot with Qt 6 Gui: QPainter on a QImage under the offscreen platform.
#include <unistd.h>

#include <algorithm>
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

#include "perf_counters/plot.hpp"
#include "perf_counters/series.hpp"

namespace ncp2::counters {

namespace {

constexpr int kWidth = 1100;
constexpr int kPanelHeight = 190;
constexpr int kTitleHeight = 56;
constexpr int kLeft = 96;
constexpr int kRight = 24;
constexpr int kPanelGap = 46;  // x tick labels and the next panel's name
constexpr int kNoteLine = 18;
// Okabe-Ito: distinguishable with the common colour-vision deficiencies.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000"};

// Qt needs an application object for fonts; the CLI has none, so make one on the offscreen
// platform (no display), once, for the process's lifetime.
void ensure_gui_application() {
  if (QGuiApplication::instance()) return;
  static int argc = 3;
  static char arg0[] = "ncp2";
  static char arg1[] = "-platform";
  static char arg2[] = "offscreen";
  static char* argv[] = {arg0, arg1, arg2, nullptr};
  // Silence Qt's chatter about XDG_RUNTIME_DIR and the like; real failures are reported by us.
  qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
    if (type == QtCriticalMsg || type == QtFatalMsg)
      std::fprintf(stderr, "Qt: %s\n", message.toLocal8Bit().data());
  });
  static const auto app = std::make_unique<QGuiApplication>(argc, argv);
}

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

}  // namespace

bool plot_available() { return true; }

void plot_rates_png(const CounterRun& run, const std::string& path) {
  std::vector<const EventStatus*> counted;
  std::vector<const EventStatus*> missing;
  for (const auto& e : run.events) (e.available ? counted : missing).push_back(&e);
  if (counted.empty()) throw PlotError(fmt::format("{}: nothing to plot: no event was counted", path));

  ensure_gui_application();
  const auto rows = sample_rows(run);
  double t_end = 0;
  for (const auto& r : rows) t_end = std::max(t_end, r.t_s);
  if (t_end <= 0) t_end = 1e-3;
  const double x_step = nice_step(t_end, 10);
  const double x_top = std::ceil(t_end / x_step) * x_step;

  const int height = kTitleHeight + static_cast<int>(counted.size()) * (kPanelHeight + kPanelGap) +
                     static_cast<int>(missing.size() + 1) * kNoteLine + 10;
  QImage image(kWidth, height, QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  QFont font("DejaVu Sans");
  font.setPixelSize(13);
  p.setFont(font);

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

  const int plot_width = kWidth - kLeft - kRight;
  for (std::size_t k = 0; k < counted.size(); ++k) {
    const EventStatus& e = *counted[k];
    const auto g = static_cast<std::size_t>(e.group_index);
    const bool clock = e.unit == "ns";
    std::vector<Step> steps;
    double y_max = 0;
    double y_max_late = 0;
    for (const auto& r : rows) {
      const auto rate = rate_per_second(r.points.at(g), r.dt_ms);
      if (!rate) continue;
      const double y = clock ? *rate / 1e9 : *rate;
      steps.push_back({r.t_s - r.dt_ms / 1e3, r.t_s, y, r.late});
      double& top_so_far = r.late ? y_max_late : y_max;
      top_so_far = std::max(top_so_far, y);
    }
    // Rows read late have an uncertain rate: as in the paper's parser they do not set the scale;
    // they are drawn in grey, clipped to the panel.
    if (y_max <= 0) y_max = y_max_late;
    if (y_max <= 0) y_max = 1.0;
    const double y_step = nice_step(y_max * 1.05, 4);
    const double y_top = std::ceil(y_max * 1.05 / y_step) * y_step;

    const int top = kTitleHeight + static_cast<int>(k) * (kPanelHeight + kPanelGap) + 18;
    const QRect area(kLeft, top, plot_width, kPanelHeight);
    auto x_of = [&](double t) { return area.left() + t / x_top * area.width(); };
    auto y_of = [&](double v) { return area.bottom() - v / y_top * area.height(); };

    p.setPen(Qt::black);
    p.drawText(kLeft, top - 5,
               QString::fromStdString(clock ? fmt::format("{} (CPUs)", e.name)
                                            : fmt::format("{} per second", e.name)));
    // Grid and ticks.
    p.setPen(QPen(QColor("#dddddd"), 1));
    for (double v = 0; v <= y_top + y_step / 2; v += y_step)
      p.drawLine(QPointF(area.left(), y_of(v)), QPointF(area.right(), y_of(v)));
    for (double t = 0; t <= x_top + x_step / 2; t += x_step)
      p.drawLine(QPointF(x_of(t), area.top()), QPointF(x_of(t), area.bottom()));
    p.setPen(Qt::black);
    p.drawRect(area);
    for (double v = 0; v <= y_top + y_step / 2; v += y_step)
      p.drawText(QRectF(0, y_of(v) - 8, kLeft - 8, 16), Qt::AlignRight | Qt::AlignVCenter, number_label(v));
    for (double t = 0; t <= x_top + x_step / 2; t += x_step)
      p.drawText(QRectF(x_of(t) - 40, area.bottom() + 3, 80, 16), Qt::AlignHCenter | Qt::AlignTop,
                 QString::fromStdString(fmt::format("{:g} s", t)));

    p.save();
    p.setClipRect(area);
    QPainterPath line;
    QPainterPath late_line;
    bool started = false;
    double previous_y = y_of(0);
    for (const auto& s : steps) {
      const double y = y_of(std::min(s.rate, y_top * 1.02));
      if (s.late) {
        // The late step in grey; the coloured line resumes at the next step.
        late_line.moveTo(x_of(s.t0), y);
        late_line.lineTo(x_of(s.t1), y);
        line.moveTo(x_of(s.t1), previous_y);
      } else {
        if (!started)
          line.moveTo(x_of(s.t0), y);
        else
          line.lineTo(x_of(s.t0), y);
        line.lineTo(x_of(s.t1), y);
        previous_y = y;
      }
      started = true;
    }
    p.setPen(QPen(QColor("#b0b0b0"), 1.2));
    p.drawPath(late_line);
    p.setPen(QPen(QColor(kPalette[k % std::size(kPalette)]), 1.6));
    p.drawPath(line);
    p.restore();
  }

  int y = kTitleHeight + static_cast<int>(counted.size()) * (kPanelHeight + kPanelGap) + 6;
  p.setPen(QColor("#444444"));
  for (const auto* e : missing) {
    std::string text = fmt::format("not counted: {}: {}", e->name, e->reason);
    if (text.size() > 150) text = text.substr(0, 147) + "...";
    p.drawText(kLeft, y, QString::fromStdString(text));
    y += kNoteLine;
  }
  p.end();

  const std::string temp = fmt::format("{}.tmp-{}.png", path, ::getpid());
  if (!image.save(QString::fromStdString(temp), "PNG")) {
    std::remove(temp.c_str());
    throw PlotError(fmt::format("{}: cannot write the PNG", path));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw PlotError(fmt::format("{}: cannot write the PNG (rename failed)", path));
  }
}

}  // namespace ncp2::counters
