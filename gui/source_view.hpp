#pragma once
// The main view (SPEC §3.4, the paper's Figure 4): the application source on the right, line
// numbers shaded by each line's share of the time in the middle, and on the left a vertical bar
// per scope (shaded by inclusive time) and a horizontal bar at each scope's start (split into
// the categories: PP above, CP below). It follows the AnalysisContext and sets it on clicks.
#include <vector>

#include <QAbstractScrollArea>
#include <QStringList>
#include <QWidget>

#include "gui/analysis_context.hpp"
#include "gui/source_layout.hpp"

class QBoxLayout;
class QComboBox;
class QHBoxLayout;
class QPainter;

namespace ncp2::gui {

class ShadingLegend;

class SourceView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit SourceView(AnalysisContext* context, QWidget* parent = nullptr);

  [[nodiscard]] const QString& file() const { return file_; }
  [[nodiscard]] const SourceLayout& layout_geometry() const { return layout_; }
  [[nodiscard]] std::int64_t line_time(int line) const;
  [[nodiscard]] std::int64_t max_line_time() const { return max_line_time_; }
  [[nodiscard]] int first_visible_line() const;
  [[nodiscard]] int last_visible_line() const;
  // A content rectangle in viewport coordinates (after scrolling).
  [[nodiscard]] QRect to_viewport(const QRect& content) const;
  // The gray of a line-number cell, and of a scope bar (for the legend and tests).
  [[nodiscard]] QColor number_color(int line) const;
  [[nodiscard]] QColor scope_bar_color(std::uint32_t id) const;
  // The tooltip text at a viewport point (empty where there is none).
  [[nodiscard]] QString tooltip_at(QPoint viewport_point) const;
  // The selected data race's accesses in the shown file, one mark per line (both accesses on
  // one line share it): these lines are tinted and labelled.
  struct RaceMark {
    int line = 0;
    QString label;        // "race 1: node 0 writes"
    QString short_label;  // "race 1", where the line leaves no room for the label
    QString details;      // for the tooltip: interval and vector time of each access
  };
  [[nodiscard]] std::vector<RaceMark> race_marks() const;

  void show_file(const QString& file);
  void scroll_to_line(int line);

 signals:
  void file_shown(const QString& file);
  void scope_bar_clicked(qint64 scope);     // wants the scope's profile per processor
  void category_bar_clicked(qint64 scope);  // wants the scope's category histogram
  void scale_changed(double max_line_percent);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rebuild();
  void update_scrollbars();
  void paint_bars(QPainter& p);
  void paint_race_marks(QPainter& p, const std::vector<RaceMark>& marks);
  [[nodiscard]] QPoint to_content(QPoint viewport_point) const;
  [[nodiscard]] int text_width() const;

  AnalysisContext* context_;
  std::shared_ptr<const Analysis> analysis_;
  QString file_;
  QStringList lines_;
  std::vector<std::int64_t> line_times_;
  std::int64_t max_line_time_ = 0;
  SourceLayout layout_;
  int longest_line_px_ = 0;
};

// The source view with its file chooser and shading legend above it.
class SourcePanel : public QWidget {
  Q_OBJECT
 public:
  explicit SourcePanel(AnalysisContext* context, QWidget* parent = nullptr);
  [[nodiscard]] SourceView* view() const { return view_; }
  [[nodiscard]] QComboBox* file_chooser() const { return files_; }
  [[nodiscard]] QComboBox* shading_chooser() const { return shading_; }
  [[nodiscard]] ShadingLegend* shading_legend() const { return legend_; }

 protected:
  // A narrow panel puts the shading legend under the choosers rather than cutting its scale.
  void resizeEvent(QResizeEvent* event) override;

 private:
  void refill_files();
  void place_legend();  // beside the choosers when it fits whole, else under them

  AnalysisContext* context_;
  SourceView* view_;
  QComboBox* files_;
  QComboBox* shading_;
  ShadingLegend* legend_;
  QBoxLayout* header_ = nullptr;  // the choosers, then the legend: in a row or a column
  QHBoxLayout* choosers_ = nullptr;
};

}  // namespace ncp2::gui
