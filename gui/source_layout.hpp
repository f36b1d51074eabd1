#pragma once
// Geometry of the source view, separated from painting so that it can be tested without a
// window: one row per source line; from left to right the horizontal category bars (at each
// scope's first line), the vertical scope bars (one column per nesting depth), the shaded
// line-number cells, the text. Coordinates are the content's (before scrolling).
#include <cstdint>
#include <vector>

#include <QPoint>
#include <QRect>

namespace ncp2::gui {

struct SourceMetrics {
  int row_height = 16;
  int category_bar_width = 96;  // the horizontal bars' column
  int scope_bar_width = 8;      // one vertical bar
  int scope_bar_gap = 3;
  int max_depth_columns = 10;  // deeper scopes share the last column
  int number_width = 40;       // the line-number cells
  int gap = 6;                 // between the columns
};

struct LayoutScope {
  std::uint32_t id = 0;
  int depth = 0;
  int begin_line = 0;  // 1-based, inclusive
  int end_line = 0;
};

struct SourceHit {
  enum class Area { None, CategoryBar, ScopeBar, LineNumber, Text };
  Area area = Area::None;
  std::int64_t scope = -1;  // for the bars
  int line = 0;             // 1-based; 0 outside the rows
};

class SourceLayout {
 public:
  SourceLayout() = default;
  SourceLayout(std::vector<LayoutScope> scopes, int line_count, const SourceMetrics& metrics);

  [[nodiscard]] const SourceMetrics& metrics() const { return m_; }
  [[nodiscard]] int line_count() const { return lines_; }
  [[nodiscard]] int depth_columns() const { return columns_; }
  [[nodiscard]] const std::vector<LayoutScope>& scopes() const { return scopes_; }

  [[nodiscard]] int scope_bars_x() const { return m_.category_bar_width + m_.gap; }
  [[nodiscard]] int numbers_x() const;
  [[nodiscard]] int text_x() const { return numbers_x() + m_.number_width + m_.gap; }
  [[nodiscard]] int content_height() const { return lines_ * m_.row_height; }

  // The row of a line, and the line at a height (0 outside).
  [[nodiscard]] int row_y(int line) const { return (line - 1) * m_.row_height; }
  [[nodiscard]] int line_at(int y) const;

  [[nodiscard]] QRect number_rect(int line) const;
  // Null rect for a scope that is not in the layout.
  [[nodiscard]] QRect scope_bar_rect(std::uint32_t id) const;
  [[nodiscard]] QRect category_bar_rect(std::uint32_t id) const;
  // The line on which a scope's category bar sits: its first line, or the next free line of its
  // extent when an enclosing scope starts on the same line.
  [[nodiscard]] int category_bar_line(std::uint32_t id) const;

  [[nodiscard]] SourceHit hit(QPoint p) const;

 private:
  [[nodiscard]] const LayoutScope* find(std::uint32_t id) const;
  [[nodiscard]] int column_of(const LayoutScope& s) const;

  SourceMetrics m_;
  std::vector<LayoutScope> scopes_;  // outer first
  std::vector<int> bar_line_;        // by index in scopes_
  int lines_ = 0;
  int columns_ = 1;
};

}  // namespace ncp2::gui
