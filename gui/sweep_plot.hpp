#pragma once
// One of a sweep's figures (sweep/sweep_plots.hpp: the speedup curves, the categories per point)
// painted in a widget with the same shapes as its SVG and PNG (figures/figure_painter.hpp), laid
// out again for the widget's size (the text keeps its size) and scaled down only below the
// figure's smallest layout; a click on a point's marker or bars says which point. The open run's point is
// ringed, the one it is compared with ringed dashed.
#include <cstdint>
#include <functional>
#include <optional>

#include <QTransform>
#include <QWidget>

#include "sweep/sweep_plots.hpp"

namespace ncp2::gui {

class SweepPlot : public QWidget {
  Q_OBJECT
 public:
  explicit SweepPlot(QWidget* parent = nullptr);

  // Draws what `make` lays out for a size (again on each resize).
  using Layout = std::function<sweep::SweepFigure(sweep::FigureSize)>;
  void set_layout(Layout make);
  [[nodiscard]] const sweep::SweepFigure& figure() const { return figure_; }
  // The points to ring (-1: none).
  void set_highlight(std::int64_t opened, std::int64_t compared);
  // The text of a point's tooltip.
  void set_describe(std::function<QString(std::int64_t)> describe) { describe_ = std::move(describe); }

  // Where point `id` is drawn, in widget coordinates; nullopt when it is not drawn.
  [[nodiscard]] std::optional<QPointF> point_position(std::int64_t id) const;
  // The point drawn at `position` (widget coordinates), if any.
  [[nodiscard]] std::optional<std::int64_t> point_at(QPointF position) const;

  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 signals:
  void point_clicked(std::int64_t id, Qt::KeyboardModifiers modifiers);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;

 private:
  [[nodiscard]] QTransform to_widget() const;  // figure pixels -> widget pixels, aspect kept
  [[nodiscard]] const sweep::PointMark* mark_of(std::int64_t id) const;
  void ring(QPainter& p, std::int64_t id, bool dashed) const;

  void relayout();

  Layout make_;
  sweep::SweepFigure figure_;
  std::int64_t opened_ = -1;
  std::int64_t compared_ = -1;
  std::function<QString(std::int64_t)> describe_;
};

}  // namespace ncp2::gui
