#include "gui/source_layout.hpp"

#include <algorithm>
#include <set>

namespace ncp2::gui {

SourceLayout::SourceLayout(std::vector<LayoutScope> scopes, int line_count, const SourceMetrics& metrics)
    : m_(metrics), scopes_(std::move(scopes)), lines_(std::max(0, line_count)) {
  // Clamp the extents to the rows; drop scopes that lie wholly outside.
  std::erase_if(scopes_, [&](const LayoutScope& s) { return s.begin_line < 1 || s.begin_line > lines_; });
  for (auto& s : scopes_) s.end_line = std::clamp(s.end_line, s.begin_line, lines_);
  std::stable_sort(scopes_.begin(), scopes_.end(), [](const LayoutScope& a, const LayoutScope& b) {
    return a.depth != b.depth ? a.depth < b.depth : a.begin_line < b.begin_line;
  });
  int deepest = 0;
  for (const auto& s : scopes_) deepest = std::max(deepest, s.depth);
  columns_ = std::clamp(deepest + 1, 1, std::max(1, m_.max_depth_columns));
  // Category bars: outer scopes take their first line, nested ones starting there move down.
  std::set<int> taken;
  bar_line_.resize(scopes_.size());
  for (std::size_t i = 0; i < scopes_.size(); ++i) {
    const auto& s = scopes_[i];
    int line = s.begin_line;
    while (taken.contains(line) && line < s.end_line) ++line;
    if (taken.contains(line)) line = s.begin_line;  // no free line: share the first one
    taken.insert(line);
    bar_line_[i] = line;
  }
}

int SourceLayout::numbers_x() const {
  return scope_bars_x() + columns_ * (m_.scope_bar_width + m_.scope_bar_gap) + m_.gap;
}

int SourceLayout::line_at(int y) const {
  if (y < 0 || m_.row_height <= 0) return 0;
  const int line = y / m_.row_height + 1;
  return line <= lines_ ? line : 0;
}

QRect SourceLayout::number_rect(int line) const {
  if (line < 1 || line > lines_) return {};
  return {numbers_x(), row_y(line), m_.number_width, m_.row_height};
}

const LayoutScope* SourceLayout::find(std::uint32_t id) const {
  for (const auto& s : scopes_)
    if (s.id == id) return &s;
  return nullptr;
}

int SourceLayout::column_of(const LayoutScope& s) const { return std::min(s.depth, columns_ - 1); }

QRect SourceLayout::scope_bar_rect(std::uint32_t id) const {
  const auto* s = find(id);
  if (!s) return {};
  const int x = scope_bars_x() + column_of(*s) * (m_.scope_bar_width + m_.scope_bar_gap);
  // One pixel of air at both ends, so that consecutive sibling scopes stay apart.
  return {x, row_y(s->begin_line) + 1, m_.scope_bar_width,
          (s->end_line - s->begin_line + 1) * m_.row_height - 2};
}

int SourceLayout::category_bar_line(std::uint32_t id) const {
  for (std::size_t i = 0; i < scopes_.size(); ++i)
    if (scopes_[i].id == id) return bar_line_[i];
  return 0;
}

QRect SourceLayout::category_bar_rect(std::uint32_t id) const {
  const int line = category_bar_line(id);
  if (line == 0) return {};
  return {2, row_y(line) + 2, m_.category_bar_width - 4, m_.row_height - 4};
}

SourceHit SourceLayout::hit(QPoint p) const {
  SourceHit h;
  h.line = line_at(p.y());
  if (h.line == 0 || p.x() < 0) return h;
  if (p.x() < m_.category_bar_width) {
    // The deepest scope whose bar is on this line.
    for (std::size_t i = 0; i < scopes_.size(); ++i)
      if (bar_line_[i] == h.line && category_bar_rect(scopes_[i].id).contains(p)) {
        h.area = SourceHit::Area::CategoryBar;
        h.scope = scopes_[i].id;
      }
    return h;
  }
  if (p.x() < numbers_x()) {
    const int column = (p.x() - scope_bars_x()) / (m_.scope_bar_width + m_.scope_bar_gap);
    if (p.x() < scope_bars_x() || column >= columns_) return h;
    // Among the scopes in that column holding the line, the innermost (the last, outer first).
    for (const auto& s : scopes_)
      if (column_of(s) == column && s.begin_line <= h.line && h.line <= s.end_line) {
        h.area = SourceHit::Area::ScopeBar;
        h.scope = s.id;
      }
    return h;
  }
  h.area = p.x() < text_x() ? SourceHit::Area::LineNumber : SourceHit::Area::Text;
  return h;
}

}  // namespace ncp2::gui
