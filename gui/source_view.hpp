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
#include "gui/text_find.hpp"

class QPainter;

namespace ncp2::gui {

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

  // The shown file's lines (for the find bar), the matches it highlights and the current one.
  [[nodiscard]] const QStringList& lines() const { return lines_; }
  void set_find_matches(std::vector<TextMatch> matches, int current);
  [[nodiscard]] const std::vector<TextMatch>& find_matches() const { return find_matches_; }
  // Where a match is drawn, in viewport coordinates (after both scrolls).
  [[nodiscard]] QRect match_rect(const TextMatch& match) const;
  void show_match(const TextMatch& match);  // scrolls it into view, both ways

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
  void paint_find_matches(QPainter& p, int first, int last);
  void paint_text(QPainter& p, int first, int last);
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
  std::vector<TextMatch> find_matches_;
  int find_current_ = -1;
};

}  // namespace ncp2::gui
