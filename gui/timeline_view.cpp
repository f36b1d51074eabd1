#include "gui/timeline_view.hpp"

#include <cmath>

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "gui/models.hpp"
#include "gui/widgets.hpp"

namespace ncp2::gui {

namespace {

constexpr double kWheelZoom = 1.25;  // per wheel notch
constexpr int kClickSlop = 3;        // px a press may move and still be a click

// A tick step of 1, 2 or 5 times a power of ten, about `wanted` picoseconds.
double tick_step(double wanted) {
  const double power = std::pow(10.0, std::floor(std::log10(std::max(wanted, 1.0))));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= wanted) return m * power;
  return 10 * power;
}

QColor color_of(const Analysis* a, carnival::Category c) {
  return a ? category_color(*a, static_cast<std::size_t>(c)) : QColor(Qt::gray);
}

}  // namespace

TimelineLoad load_timeline_file(const QString& path) {
  TimelineLoad out;
  out.path = path;
  try {
    out.data = std::make_shared<const TimelineData>(load_timeline(path.toStdString()));
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
  }
  return out;
}

// --- the canvas --------------------------------------------------------------------------------

TimelineCanvas::TimelineCanvas(AnalysisContext* context, QWidget* parent)
    : QWidget(parent), context_(context) {
  setObjectName(QStringLiteral("timeline-canvas"));
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(200, 80);
  connect(context_, &AnalysisContext::scope_changed, this, [this] { update(); });
  connect(context_, &AnalysisContext::analysis_changed, this, [this] { update(); });
}

void TimelineCanvas::set_data(std::shared_ptr<const TimelineData> data) {
  data_ = std::move(data);
  scroll_y_ = 0;
  fit();
  emit vertical_changed();
}

void TimelineCanvas::set_window(const TimeWindow& w) {
  window_ = w;
  fitted_ = false;
  update();
  emit window_changed();
}

void TimelineCanvas::fit() {
  window_ = TimeWindow::fit(data_ ? data_->end_ps : 1, lanes_width());
  fitted_ = true;
  update();
  emit window_changed();
}

void TimelineCanvas::zoom(double factor, double x) { set_window(window_.zoomed(factor, x)); }

int TimelineCanvas::lane_height() const {
  const std::size_t lanes = data_ ? std::max<std::size_t>(data_->lanes.size(), 1) : 1;
  const int room = (height() - kAxisHeight) / static_cast<int>(lanes);
  return std::clamp(room, 4, 28);
}

int TimelineCanvas::lane_top(std::size_t lane) const {
  return kAxisHeight + static_cast<int>(lane) * lane_height() - scroll_y_;
}

int TimelineCanvas::max_scroll_y() const {
  if (!data_) return 0;
  return std::max(0, static_cast<int>(data_->lanes.size()) * lane_height() - (height() - kAxisHeight));
}

void TimelineCanvas::set_scroll_y(int y) {
  const int clamped = std::clamp(y, 0, max_scroll_y());
  if (clamped == scroll_y_) return;
  scroll_y_ = clamped;
  update();
  emit vertical_changed();
}

std::optional<std::size_t> TimelineCanvas::lane_at(int y) const {
  if (!data_ || y < kAxisHeight) return std::nullopt;
  const auto lane = static_cast<std::size_t>((y - kAxisHeight + scroll_y_) / lane_height());
  if (lane >= data_->lanes.size()) return std::nullopt;
  return lane;
}

const TimelineSegment* TimelineCanvas::segment_at_point(QPoint p, std::size_t* lane_out) const {
  const auto lane = lane_at(p.y());
  if (!lane || p.x() < kLabelWidth) return nullptr;
  if (lane_out) *lane_out = *lane;
  const auto t = static_cast<std::int64_t>(window_.t_of(p.x() - kLabelWidth + 0.5));
  return gui::segment_at(data_->lanes[*lane], t);
}

void TimelineCanvas::paintEvent(QPaintEvent* /*event*/) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!data_) return;
  paint_lanes(p);
  paint_flows(p);
  paint_axis(p);
}

void TimelineCanvas::paint_axis(QPainter& p) const {
  p.fillRect(QRect(0, 0, width(), kAxisHeight), palette().window());
  p.setPen(palette().color(QPalette::WindowText));
  const double step = tick_step(120 * window_.ps_per_pixel);
  const double first = std::ceil(window_.start_ps / step) * step;
  for (double t = first; t < window_.end_ps(lanes_width()); t += step) {
    const int x = kLabelWidth + static_cast<int>(std::lround(window_.x_of(t)));
    p.drawLine(x, kAxisHeight - 5, x, kAxisHeight);
    p.drawText(QRect(x + 2, 0, 118, kAxisHeight - 3), Qt::AlignLeft | Qt::AlignBottom,
               time_text(static_cast<std::int64_t>(std::llround(t))));
  }
  p.drawLine(0, kAxisHeight - 1, width(), kAxisHeight - 1);
}

void TimelineCanvas::paint_label(QPainter& p, const TimelineLane& lane, QRect rect) const {
  // "n3 PP" where a lane has room for a line of text; else "n3" over the node's lanes, on every
  // node whose label does not run into the previous one.
  const int text_height = fontMetrics().height();
  p.setPen(palette().color(QPalette::Text));
  if (rect.height() >= text_height) {
    p.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
               tr("n%1 %2").arg(lane.node).arg(lane.cp ? QStringLiteral("CP") : QStringLiteral("PP")));
    return;
  }
  if (lane.cp) return;
  const int lanes_per_node = data_->has_cp ? 2 : 1;
  const int node_height = rect.height() * lanes_per_node;
  const int every = std::max(1, (text_height + node_height - 1) / node_height);
  if (lane.node % every != 0) return;
  const QRect node_rect(rect.left(), rect.top() + node_height / 2 - text_height / 2, rect.width(),
                        text_height);
  p.drawText(node_rect, Qt::AlignRight | Qt::AlignVCenter, tr("n%1").arg(lane.node));
}

void TimelineCanvas::paint_lanes(QPainter& p) const {
  const auto analysis = context_->analysis();
  const int h = lane_height();
  const int width_px = lanes_width();
  const QColor selected_mark = palette().color(QPalette::Text);
  for (std::size_t i = 0; i < data_->lanes.size(); ++i) {
    const auto& lane = data_->lanes[i];
    const int top = lane_top(i);
    if (top + h <= kAxisHeight || top >= height()) continue;  // scrolled out of view
    const QRect label(0, top, kLabelWidth - 4, h);
    if (context_->node_filter() == lane.node)
      p.fillRect(QRect(0, top, width(), h), palette().color(QPalette::Highlight).lighter(185));
    paint_label(p, lane, label);
    // One pixel of space between lanes; a node's CP lane sits right under its PP lane.
    const int bar_top = top + (lane.cp ? 0 : 1);
    const int bar_h = std::max(1, h - 1);
    // The selected scope's mark: a thin band at the bottom, thick enough to see, thin enough to
    // leave the colour readable.
    const int mark_h = std::clamp(bar_h / 5, 2, 4);
    for (const auto& run : lane_runs(lane, window_, width_px, context_->scope())) {
      const QRect r(kLabelWidth + run.x0, bar_top, run.x1 - run.x0, bar_h);
      p.fillRect(r, color_of(analysis.get(), run.category));
      if (run.selected)
        p.fillRect(QRect(r.left(), r.bottom() - mark_h + 1, r.width(), mark_h), selected_mark);
    }
  }
}

void TimelineCanvas::paint_flows(QPainter& p) {
  const auto from = static_cast<std::int64_t>(window_.start_ps);
  const auto to = static_cast<std::int64_t>(window_.end_ps(lanes_width()));
  std::size_t total = 0;
  const auto flows = visible_flows(*data_, from, to, kMaxFlows + 1, &total);
  flows_drawn_ = 0;
  if (flows.size() > kMaxFlows) return;  // too many to read: the status line says to zoom in
  const auto analysis = context_->analysis();
  QColor color = analysis
                     ? category_color(*analysis, carnival::kCategories +
                                                     static_cast<std::size_t>(carnival::WaitPart::SyncDelay))
                     : QColor(Qt::black);
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setClipRect(QRect(kLabelWidth, kAxisHeight, lanes_width(), height() - kAxisHeight));
  const int h = lane_height();
  for (const auto* f : flows) {
    const auto from_lane = data_->lane_of(f->cause, false);
    const auto to_lane = data_->lane_of(f->waiter, f->waiter_cp && data_->has_cp);
    if (!from_lane || !to_lane) continue;
    const QPointF a(kLabelWidth + window_.x_of(static_cast<double>(f->release_ps)),
                    lane_top(*from_lane) + h / 2.0);
    const QPointF b(kLabelWidth + window_.x_of(static_cast<double>(f->end_ps)), lane_top(*to_lane) + h / 2.0);
    const bool selected = static_cast<std::int64_t>(f->scope) == context_->scope();
    p.setPen(QPen(color, selected ? 2.0 : 1.0));
    p.drawLine(a, b);
    // The arrowhead at the waiter.
    const double angle = std::atan2(b.y() - a.y(), b.x() - a.x());
    const double size = 6;
    QPainterPath head;
    head.moveTo(b);
    head.lineTo(b.x() - size * std::cos(angle - 0.4), b.y() - size * std::sin(angle - 0.4));
    head.lineTo(b.x() - size * std::cos(angle + 0.4), b.y() - size * std::sin(angle + 0.4));
    head.closeSubpath();
    p.fillPath(head, color);
    ++flows_drawn_;
  }
  p.setClipping(false);
  p.setRenderHint(QPainter::Antialiasing, false);
}

QString TimelineCanvas::tooltip_at(QPoint pos) const {
  std::size_t lane = 0;
  const auto* s = segment_at_point(pos, &lane);
  if (!s) return {};
  const auto analysis = context_->analysis();
  const auto& l = data_->lanes[lane];
  const QString scope = analysis ? QString::fromStdString(analysis->scope_name(s->scope))
                                 : QStringLiteral("scope %1").arg(s->scope);
  const QString op = s->operation < data_->operations.size()
                         ? QString::fromStdString(data_->operations[s->operation])
                         : QString();
  QString text =
      tr("<b>node %1 %2</b>: %3%4<br>in <i>%5</i><br>%6 from %7 to %8")
          .arg(l.node)
          .arg(l.cp ? QStringLiteral("CP") : QStringLiteral("PP"),
               QString::fromStdString(std::string(carnival::to_string(s->category))),
               op.isEmpty() || op == QLatin1String("none") ? QString()
                                                           : QStringLiteral(" (%1)").arg(op.toHtmlEscaped()),
               scope.toHtmlEscaped(), time_text(s->end_ps - s->start_ps), time_text(s->start_ps),
               time_text(s->end_ps));
  if (s->category == carnival::Category::Wait || s->category == carnival::Category::CPWait)
    if (const auto* f = flow_at(*data_, l.node, l.cp, (s->start_ps + s->end_ps) / 2))
      text += tr("<br>made to wait by <b>node %1</b>: %2 of synchronization delay (the arrow)")
                  .arg(f->cause)
                  .arg(time_text(f->release_ps - f->start_ps));
  return text;
}

bool TimelineCanvas::event(QEvent* e) {
  return show_tooltip(e, this, [this](QPoint p) { return tooltip_at(p); }) || QWidget::event(e);
}

void TimelineCanvas::resizeEvent(QResizeEvent* /*event*/) {
  if (fitted_) {
    window_ = TimeWindow::fit(data_ ? data_->end_ps : 1, lanes_width());
    emit window_changed();
  }
  scroll_y_ = std::min(scroll_y_, max_scroll_y());
  emit vertical_changed();
}

void TimelineCanvas::wheelEvent(QWheelEvent* e) {
  const QPoint delta = e->angleDelta();
  const double x = e->position().x() - kLabelWidth;
  if (x < 0) {  // over the lanes' names: through the lanes
    set_scroll_y(scroll_y_ - delta.y() / 120 * 3 * lane_height());
    e->accept();
    return;
  }
  if ((e->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
    const int d = delta.x() != 0 ? delta.x() : delta.y();
    set_window(window_.panned(d / 120.0 * lanes_width() / 10.0));
  } else if (delta.y() != 0) {
    zoom(std::pow(kWheelZoom, delta.y() / 120.0), x);
  }
  e->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* e) {
  press_ = e->pos();
  press_start_ps_ = window_.start_ps;
  dragging_ = false;
  setFocus();
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* e) {
  if (!(e->buttons() & Qt::LeftButton)) return;
  const int dx = e->pos().x() - press_.x();
  if (!dragging_ && std::abs(dx) <= kClickSlop) return;
  dragging_ = true;
  set_window({press_start_ps_ - dx * window_.ps_per_pixel, window_.ps_per_pixel});
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* e) {
  if (dragging_ || e->button() != Qt::LeftButton) return;
  if (const auto* s = segment_at_point(e->pos())) context_->select_scope(s->scope);
}

void TimelineCanvas::keyPressEvent(QKeyEvent* e) {
  const double middle = lanes_width() / 2.0;
  switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoom(2.0, middle);
      return;
    case Qt::Key_Minus:
      zoom(0.5, middle);
      return;
    case Qt::Key_0:
    case Qt::Key_Home:
      fit();
      return;
    case Qt::Key_Left:
      set_window(window_.panned(lanes_width() / 8.0));
      return;
    case Qt::Key_Right:
      set_window(window_.panned(-lanes_width() / 8.0));
      return;
    case Qt::Key_Up:
      set_scroll_y(scroll_y_ - lane_height());
      return;
    case Qt::Key_Down:
      set_scroll_y(scroll_y_ + lane_height());
      return;
    case Qt::Key_PageUp:
      set_scroll_y(scroll_y_ - (height() - kAxisHeight));
      return;
    case Qt::Key_PageDown:
      set_scroll_y(scroll_y_ + (height() - kAxisHeight));
      return;
    default:
      QWidget::keyPressEvent(e);
  }
}

// --- the view ------------------------------------------------------------------------------------

TimelineView::TimelineView(AnalysisContext* context, QWidget* parent)
    : QWidget(parent), context_(context), canvas_(new TimelineCanvas(context, this)) {
  setObjectName(QStringLiteral("timeline"));
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  auto* tools = new QHBoxLayout;
  auto button = [&](const QString& text, const QString& tip, auto&& action) {
    auto* b = new QPushButton(text, this);
    b->setToolTip(tip);
    b->setFocusPolicy(Qt::NoFocus);
    connect(b, &QPushButton::clicked, this, action);
    tools->addWidget(b);
  };
  button(tr("Fit"), tr("Show the whole run (0)"), [this] { canvas_->fit(); });
  button(tr("+"), tr("Zoom in (+, or the wheel)"),
         [this] { canvas_->zoom(2.0, canvas_->lanes_width() / 2.0); });
  button(tr("−"), tr("Zoom out (-, or the wheel)"),
         [this] { canvas_->zoom(0.5, canvas_->lanes_width() / 2.0); });
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("timeline-status"));
  status_->setWordWrap(true);
  tools->addWidget(status_, 1);
  column->addLayout(tools);
  auto* row = new QHBoxLayout;
  row->setSpacing(0);
  row->addWidget(canvas_, 1);
  // When the lanes do not fit even at their thinnest: a bar to scroll through them.
  lanes_bar_ = new QScrollBar(Qt::Vertical, this);
  lanes_bar_->hide();
  row->addWidget(lanes_bar_);
  column->addLayout(row, 1);
  connect(lanes_bar_, &QScrollBar::valueChanged, canvas_, &TimelineCanvas::set_scroll_y);
  connect(canvas_, &TimelineCanvas::vertical_changed, this, [this] {
    const QSignalBlocker quiet(lanes_bar_);
    lanes_bar_->setRange(0, canvas_->max_scroll_y());
    lanes_bar_->setPageStep(std::max(1, canvas_->height() - TimelineCanvas::kAxisHeight));
    lanes_bar_->setSingleStep(canvas_->lane_height());
    lanes_bar_->setValue(canvas_->scroll_y());
    lanes_bar_->setVisible(canvas_->max_scroll_y() > 0);
  });
  connect(canvas_, &TimelineCanvas::window_changed, this, &TimelineView::update_status);
  connect(context_, &AnalysisContext::analysis_changed, this, &TimelineView::run_changed);
}

TimelineView::~TimelineView() { loader_.wait(); }

void TimelineView::run_changed() {
  const auto analysis = context_->analysis();
  const QString path = analysis ? QString::fromStdString(analysis->summary().path) : QString();
  if (path == path_) return;  // only the node filter changed
  path_ = path;
  if (isVisible()) start_loading();
}

void TimelineView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (path_ != loaded_ && !loader_.running()) start_loading();
}

void TimelineView::start_loading() {
  canvas_->set_data(nullptr);
  error_.clear();
  loaded_.clear();
  if (path_.isEmpty()) {
    update_status();
    return;
  }
  status_->setText(tr("Loading the timeline…"));
  loader_.start([path = path_] { return load_timeline_file(path); },
                [this](const TimelineLoad& result) { finished(result); });
}

void TimelineView::load_and_wait() {
  // A load under way (the pane was just shown): its result, delivered now rather than later,
  // when it would reset the zoom the caller may have set meanwhile.
  loader_.finish_now();
  if (loaded_ == path_ && !path_.isEmpty()) return;
  finished(load_timeline_file(path_));  // here: the caller waits anyway
}

void TimelineView::finished(const TimelineLoad& result) {
  if (result.path != path_) {  // another run was opened meanwhile
    if (isVisible()) start_loading();
    return;
  }
  loaded_ = result.path;
  error_ = result.error;
  canvas_->set_data(result.data);
  update_status();
  emit loaded();
}

QString TimelineView::status_text() const { return status_->text(); }

void TimelineView::update_status() {
  const auto* d = canvas_->data();
  if (!error_.isEmpty()) {
    status_->setText(tr("Cannot show the timeline: %1").arg(error_));
    return;
  }
  if (!d) return;
  if (d->segment_count == 0) {
    status_->setText(tr("This run stored no timeline (it was not recorded, or capped at 0 segments)."));
    return;
  }
  const auto& w = canvas_->window();
  QString text = tr("%1 segments on %2 lanes · %3 to %4 · %5 per pixel")
                     .arg(d->segment_count)
                     .arg(d->lanes.size())
                     .arg(time_text(static_cast<std::int64_t>(std::max(0.0, w.start_ps))),
                          time_text(static_cast<std::int64_t>(w.end_ps(canvas_->lanes_width()))),
                          time_text(static_cast<std::int64_t>(w.ps_per_pixel)));
  std::size_t flows = 0;
  visible_flows(*d, static_cast<std::int64_t>(w.start_ps),
                static_cast<std::int64_t>(w.end_ps(canvas_->lanes_width())), 0, &flows);
  if (flows > TimelineCanvas::kMaxFlows)
    text += tr(" · %1 waits with a cause in view: zoom in to see their arrows").arg(flows);
  if (d->dropped > 0) text += tr(" · %1 segments were not stored (capped)").arg(d->dropped);
  status_->setText(text);
}

}  // namespace ncp2::gui
