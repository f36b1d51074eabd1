#pragma once
// The Timeline view: every processor's time along the run (the stored `timeline` table), one lane
// per PP and CP (PP only without protocol controllers), segments in their categories' colours,
// waits with synchronization delay drawn as arrows from the causing node to the waiter. Wheel or
// +/- zooms (around the pointer), dragging or Shift+wheel pans, 0 or Fit shows the whole run;
// lanes that do not fit scroll (the bar beside them, the wheel over their names, Up/Down).
// Clicking a segment selects its scope; the selected scope's segments are underlined, the
// selected node's lanes tinted. The file is read on a worker thread when the view is shown.
#include <memory>

#include <QWidget>

#include "gui/analysis_context.hpp"
#include "gui/background_task.hpp"
#include "gui/timeline_model.hpp"

class QLabel;
class QScrollBar;
class QPainter;

namespace ncp2::gui {

// What loading a timeline on a worker thread produced.
struct TimelineLoad {
  QString path;
  std::shared_ptr<const TimelineData> data;  // null on error
  QString error;
};
TimelineLoad load_timeline_file(const QString& path);  // never throws

// The drawing: lanes, time axis, flows. Geometry is public for tests.
class TimelineCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineCanvas(AnalysisContext* context, QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> data);
  [[nodiscard]] const TimelineData* data() const { return data_.get(); }
  [[nodiscard]] const TimeWindow& window() const { return window_; }
  void set_window(const TimeWindow& w);
  void fit();
  void zoom(double factor, double x);  // x: in lane coordinates (0 = the lanes' left edge)

  // Geometry: the lanes' area starts at kLabelWidth, below the axis.
  static constexpr int kLabelWidth = 64;
  static constexpr int kAxisHeight = 20;
  [[nodiscard]] int lanes_width() const { return std::max(1, width() - kLabelWidth); }
  [[nodiscard]] int lane_height() const;
  [[nodiscard]] int lane_top(std::size_t lane) const;  // with the vertical scroll
  // Lanes are at least 4 px high; when they do not fit, they scroll (pixels from the first lane).
  [[nodiscard]] int scroll_y() const { return scroll_y_; }
  [[nodiscard]] int max_scroll_y() const;
  void set_scroll_y(int y);
  // The lane under y, if any.
  [[nodiscard]] std::optional<std::size_t> lane_at(int y) const;
  // The segment under a point of the widget, if any.
  [[nodiscard]] const TimelineSegment* segment_at_point(QPoint p, std::size_t* lane = nullptr) const;
  // The tooltip of a point: node and processor, category and operation, scope, times ("": none).
  [[nodiscard]] QString tooltip_at(QPoint p) const;
  // Flows drawn by the last paint, and how many the view held (beyond kMaxFlows none are drawn).
  [[nodiscard]] std::size_t flows_drawn() const { return flows_drawn_; }
  static constexpr std::size_t kMaxFlows = 2000;

 signals:
  void window_changed();
  void vertical_changed();  // the scroll position or its range

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void paint_axis(QPainter& p) const;
  void paint_lanes(QPainter& p) const;
  void paint_label(QPainter& p, const TimelineLane& lane, QRect rect) const;
  void paint_flows(QPainter& p);

  AnalysisContext* context_;
  std::shared_ptr<const TimelineData> data_;
  TimeWindow window_;
  int scroll_y_ = 0;
  bool fitted_ = false;  // until the user zooms, a resize keeps the whole run in view
  QPoint press_;
  double press_start_ps_ = 0;
  bool dragging_ = false;
  std::size_t flows_drawn_ = 0;
};

// The canvas with its tool row (Fit, zoom, what is shown) and the loader.
class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(AnalysisContext* context, QWidget* parent = nullptr);
  ~TimelineView() override;

  [[nodiscard]] TimelineCanvas* canvas() const { return canvas_; }
  [[nodiscard]] bool is_loading() const { return loader_.running(); }
  [[nodiscard]] QString status_text() const;
  // Loads the current run's timeline now (on a worker thread) and waits; for headless use.
  void load_and_wait();

 signals:
  void loaded();  // the timeline of the current run is shown (or why it cannot be)

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void run_changed();
  void start_loading();
  void finished(const TimelineLoad& result);
  void update_status();

  AnalysisContext* context_;
  TimelineCanvas* canvas_;
  QLabel* status_;
  QScrollBar* lanes_bar_ = nullptr;
  BackgroundTask<TimelineLoad> loader_;
  QString path_;    // the run whose timeline is wanted
  QString loaded_;  // the run whose timeline is shown (or failed)
  QString error_;
};

}  // namespace ncp2::gui
