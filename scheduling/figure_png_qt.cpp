// The PNG backend of the scheduling figure: QPainter on a QImage under the offscreen platform.
#include <unistd.h>

#include <array>
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

#include "scheduling/figure.hpp"

namespace ncp2::sched {

namespace {

struct QtPainter {
  QPainter& p;
  void operator()(const LineShape& l) const {
    if (l.points.empty()) return;
    QPainterPath path;
    path.moveTo(l.points.front().x, l.points.front().y);
    for (const auto& pt : l.points) path.lineTo(pt.x, pt.y);
    p.setPen(QPen(QColor(QString::fromStdString(l.colour)), l.width));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
  }
  void operator()(const RectShape& r) const {
    p.setPen(r.stroke.empty() ? QPen(Qt::NoPen) : QPen(QColor(QString::fromStdString(r.stroke)), 1));
    p.setBrush(r.fill.empty() ? QBrush(Qt::NoBrush) : QBrush(QColor(QString::fromStdString(r.fill))));
    p.drawRect(QRectF(r.corner.x, r.corner.y, r.width, r.height));
  }
  void operator()(const TextShape& t) const {
    QFont font("DejaVu Sans");
    font.setPixelSize(static_cast<int>(t.size));
    font.setBold(t.bold);
    p.setFont(font);
    p.setPen(Qt::black);
    const QString text = QString::fromStdString(t.text);
    double x = t.at.x;
    const double width = p.fontMetrics().horizontalAdvance(text);
    if (t.anchor == Anchor::Middle) x -= width / 2;
    if (t.anchor == Anchor::End) x -= width;
    p.drawText(QPointF(x, t.at.y), text);
  }
};

}  // namespace

bool png_available() { return true; }

void write_figure_png(const Figure& figure, const std::string& path) {
  counters::ensure_offscreen_gui_application();
  QImage image(figure.width, figure.height, QImage::Format_RGB32);
  image.fill(Qt::white);
  {
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    for (const auto& shape : figure.shapes) std::visit(QtPainter{p}, shape);
  }
  if (const std::string problem = counters::save_png_atomically(image, path); !problem.empty())
    throw PlotError(problem);
}

}  // namespace ncp2::sched
