#include "gui/sweep_plot.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QMouseEvent>
#include <QPainter>

#include "figures/figure_painter.hpp"
#include "gui/widgets.hpp"

namespace ncp2::gui {

namespace {

constexpr double kSlop = 3;  // figure pixels around a marker that still hit it

QRectF rect_of(const figures::Box& b) { return {b.left, b.top, b.width, b.height}; }

}  // namespace

SweepPlot::SweepPlot(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);  // the hand cursor over points
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void SweepPlot::set_layout(Layout make) {
  make_ = std::move(make);
  relayout();
}

void SweepPlot::relayout() {
  figure_ =
      make_ ? make_({static_cast<double>(width()), static_cast<double>(height())}) : sweep::SweepFigure{};
  update();
}

void SweepPlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

void SweepPlot::set_highlight(std::int64_t opened, std::int64_t compared) {
  opened_ = opened;
  compared_ = compared;
  update();
}

QSize SweepPlot::sizeHint() const { return {720, 480}; }

QSize SweepPlot::minimumSizeHint() const { return {240, 160}; }

QTransform SweepPlot::to_widget() const {
  const auto& f = figure_.figure;
  if (f.width <= 0 || f.height <= 0) return {};
  const double scale =
      std::min(width() / static_cast<double>(f.width), height() / static_cast<double>(f.height));
  // Centred horizontally, at the top: the eye starts at the title.
  const double dx = (width() - f.width * scale) / 2;
  return QTransform::fromTranslate(dx, 0).scale(scale, scale);
}

const sweep::PointMark* SweepPlot::mark_of(std::int64_t id) const {
  const auto it = std::find_if(figure_.marks.begin(), figure_.marks.end(),
                               [id](const sweep::PointMark& m) { return m.point_id == id; });
  return it == figure_.marks.end() ? nullptr : &*it;
}

std::optional<QPointF> SweepPlot::point_position(std::int64_t id) const {
  const auto* m = mark_of(id);
  if (!m) return std::nullopt;
  return to_widget().map(rect_of(m->box).center());
}

std::optional<std::int64_t> SweepPlot::point_at(QPointF position) const {
  bool invertible = false;
  const QPointF at = to_widget().inverted(&invertible).map(position);
  if (!invertible) return std::nullopt;
  // The nearest of the marks under the cursor: markers of close curves overlap.
  std::optional<std::int64_t> best;
  double best_distance = std::numeric_limits<double>::max();
  for (const auto& m : figure_.marks) {
    const QRectF r = rect_of(m.box).adjusted(-kSlop, -kSlop, kSlop, kSlop);
    if (!r.contains(at)) continue;
    const QPointF d = r.center() - at;
    const double distance = std::hypot(d.x(), d.y());
    if (distance < best_distance) {
      best_distance = distance;
      best = m.point_id;
    }
  }
  return best;
}

void SweepPlot::ring(QPainter& p, std::int64_t id, bool dashed) const {
  const auto* m = mark_of(id);
  if (!m) return;
  QPen pen(Qt::black, 2.0);
  if (dashed) pen.setStyle(Qt::DashLine);
  p.setPen(pen);
  p.setBrush(Qt::NoBrush);
  const QRectF r = rect_of(m->box);
  // A marker gets a ring, a bar a frame.
  if (r.width() <= 16 && r.height() <= 16)
    p.drawEllipse(r.center(), 9.0, 9.0);
  else
    p.drawRect(r.adjusted(-3, -3, 3, 3));
}

void SweepPlot::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (figure_.figure.width <= 0) return;
  p.setRenderHint(QPainter::Antialiasing);
  p.setTransform(to_widget());
  figures::paint_figure(p, figure_.figure);
  ring(p, opened_, false);
  ring(p, compared_, true);
}

void SweepPlot::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  if (const auto id = point_at(event->position())) emit point_clicked(*id, event->modifiers());
}

void SweepPlot::mouseMoveEvent(QMouseEvent* event) {
  setCursor(point_at(event->position()) ? Qt::PointingHandCursor : Qt::ArrowCursor);
  QWidget::mouseMoveEvent(event);
}

bool SweepPlot::event(QEvent* event) {
  if (show_tooltip(event, this, [this](QPoint at) {
        const auto id = point_at(at);
        return id && describe_ ? describe_(*id) : QString();
      }))
    return true;
  return QWidget::event(event);
}

}  // namespace ncp2::gui
