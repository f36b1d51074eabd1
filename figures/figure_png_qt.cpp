// The PNG backend of the figures: QPainter on a QImage under the offscreen platform.
#include <QColor>
#include <QFont>
#include <QImage>
#include <QPainterPath>
#include <QPen>
#include <QString>

#include "perf_counters/offscreen_qt.hpp"

#include "figures/figure_painter.hpp"

namespace ncp2::figures {

namespace {

QColor colour_of(const std::string& name) { return {QString::fromStdString(name)}; }

struct QtPainter {
  QPainter& p;
  void operator()(const LineShape& l) const {
    if (l.points.empty()) return;
    QPainterPath path;
    path.moveTo(l.points.front().x, l.points.front().y);
    for (const auto& pt : l.points) path.lineTo(pt.x, pt.y);
    QPen pen(colour_of(l.colour), l.width);
    if (l.dashed) pen.setDashPattern({5 / l.width, 4 / l.width});  // in widths, as the SVG's 5 4 px
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
  }
  void operator()(const RectShape& r) const {
    p.setPen(r.stroke.empty() ? QPen(Qt::NoPen) : QPen(colour_of(r.stroke), 1));
    p.setBrush(r.fill.empty() ? QBrush(Qt::NoBrush) : QBrush(colour_of(r.fill)));
    p.drawRect(QRectF(r.corner.x, r.corner.y, r.width, r.height));
  }
  void operator()(const TextShape& t) const {
    QFont font("DejaVu Sans");
    font.setPixelSize(static_cast<int>(t.size));
    font.setBold(t.bold);
    p.setFont(font);
    p.setPen(t.colour.empty() ? QColor(Qt::black) : colour_of(t.colour));
    const QString text = QString::fromStdString(t.text);
    double x = t.at.x;
    const double width = p.fontMetrics().horizontalAdvance(text);
    if (t.anchor == Anchor::Middle) x -= width / 2;
    if (t.anchor == Anchor::End) x -= width;
    p.drawText(QPointF(x, t.at.y), text);
  }
  void operator()(const CircleShape& c) const {
    p.setPen(c.stroke.empty() ? QPen(Qt::NoPen) : QPen(colour_of(c.stroke), 1.2));
    p.setBrush(c.fill.empty() ? QBrush(Qt::NoBrush) : QBrush(colour_of(c.fill)));
    p.drawEllipse(QPointF(c.centre.x, c.centre.y), c.radius, c.radius);
  }
};

}  // namespace

void paint_figure(QPainter& painter, const Figure& figure) {
  for (const auto& shape : figure.shapes) std::visit(QtPainter{painter}, shape);
}

bool png_available() { return true; }

void write_figure_png(const Figure& figure, const std::string& path) {
  counters::ensure_offscreen_gui_application();
  QImage image(figure.width, figure.height, QImage::Format_RGB32);
  image.fill(Qt::white);
  {
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    paint_figure(p, figure);
  }
  if (const std::string problem = counters::save_png_atomically(image, path); !problem.empty())
    throw PlotError(problem);
}

}  // namespace ncp2::figures
