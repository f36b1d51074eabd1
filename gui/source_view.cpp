#include "gui/source_view.hpp"

#include <algorithm>

#include <QFontDatabase>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

#include "gui/models.hpp"
#include "gui/races_view.hpp"
#include "gui/widgets.hpp"

namespace ncp2::gui {

namespace {

const QColor kScopeTint(255, 243, 205);   // the selected scope's lines
const QColor kLineTint(255, 214, 102);    // the selected line
const QColor kSelectionOutline(0, 0, 0);  // the selected scope's bars
const QColor kRaceTint(248, 215, 218);    // a line of the selected data race
const QColor kMatchTint(255, 241, 118);   // a match of the find bar
const QColor kCurrentMatch(255, 152, 0);  // the current match: stronger
const QColor kRaceMark(176, 0, 32);       // its marker and label (red: a bug, not a cost)

QString access_text(const carnival::RaceAccess& a) {
  return QStringLiteral("node %1 %2")
      .arg(a.node)
      .arg(a.writes ? QStringLiteral("writes") : QStringLiteral("reads"));
}

}  // namespace

std::vector<SourceView::RaceMark> SourceView::race_marks() const {
  std::vector<RaceMark> marks;
  const auto* race = context_->selected_race();
  if (!race || !analysis_) return marks;
  for (const auto* a : {&race->first, &race->second}) {
    if (QString::fromStdString(a->file) != file_ || a->line <= 0) continue;
    const QString details = tr("<b>race %1</b>: %2 here, interval %3, vector time %4")
                                .arg(race->id)
                                .arg(access_text(*a))
                                .arg(a->interval)
                                .arg(vector_time_label(a->vector_time));
    auto same =
        std::find_if(marks.begin(), marks.end(), [&](const RaceMark& m) { return m.line == a->line; });
    if (same != marks.end()) {
      same->label += QStringLiteral(", ") + access_text(*a);
      same->details += QStringLiteral("<br>") + details;
    } else {
      marks.push_back({a->line, tr("race %1: %2").arg(race->id).arg(access_text(*a)),
                       tr("race %1").arg(race->id), details});
    }
  }
  return marks;
}

namespace {

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

SourceView::SourceView(AnalysisContext* context, QWidget* parent)
    : QAbstractScrollArea(parent), context_(context) {
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  viewport()->setMouseTracking(true);
  viewport()->setAutoFillBackground(true);
  viewport()->setBackgroundRole(QPalette::Base);
  connect(context_, &AnalysisContext::analysis_changed, this, &SourceView::rebuild);
  connect(context_, &AnalysisContext::scope_changed, viewport(), qOverload<>(&QWidget::update));
  connect(context_, &AnalysisContext::shading_changed, viewport(), qOverload<>(&QWidget::update));
  connect(context_, &AnalysisContext::race_changed, viewport(), qOverload<>(&QWidget::update));
  connect(context_, &AnalysisContext::line_changed, this, [this](const QString& file, int line) {
    if (file != file_) show_file(file);
    scroll_to_line(line);
    viewport()->update();
  });
  rebuild();
}

void SourceView::show_file(const QString& file) {
  file_ = file;
  rebuild();
}

void SourceView::rebuild() {
  analysis_ = context_->analysis();
  lines_.clear();
  line_times_.clear();
  max_line_time_ = 0;
  std::vector<LayoutScope> scopes;
  if (analysis_) {
    const auto files = analysis_->files();
    if ((file_.isEmpty() || std::find(files.begin(), files.end(), file_.toStdString()) == files.end()) &&
        !files.empty())
      file_ = QString::fromStdString(files.front());
    const std::string file = file_.toStdString();
    if (const auto* text = analysis_->source_text(file)) {
      lines_ = QString::fromStdString(*text).split(QLatin1Char('\n'));
      if (!lines_.isEmpty() && lines_.back().isEmpty()) lines_.removeLast();
    }
    line_times_ = analysis_->line_times(file);
    for (auto t : line_times_) max_line_time_ = std::max(max_line_time_, t);
    // A line's own time shades its number; only the scopes of code get bars.
    for (const auto& st : analysis_->scopes())
      if (st.scope.file == file && !Analysis::is_line(st.scope))
        scopes.push_back({st.scope.id, st.depth, st.scope.begin_line, st.scope.end_line});
  } else {
    file_.clear();
  }
  const int count = std::max(static_cast<int>(lines_.size()), static_cast<int>(line_times_.size()));
  while (lines_.size() < count) lines_.push_back(QString());
  SourceMetrics m;
  const QFontMetrics fm(font());
  m.row_height = fm.height() + 2;
  m.number_width = fm.horizontalAdvance(QString::number(std::max(count, 99))) + 10;
  layout_ = SourceLayout(std::move(scopes), count, m);
  longest_line_px_ = 0;
  for (const auto& l : lines_) longest_line_px_ = std::max(longest_line_px_, fm.horizontalAdvance(l));
  update_scrollbars();
  viewport()->update();
  emit file_shown(file_);
  emit scale_changed(analysis_ ? share(max_line_time_, analysis_->total_pp_ps()) : 0.0);
}

void SourceView::set_find_matches(std::vector<TextMatch> matches, int current) {
  find_matches_ = std::move(matches);
  find_current_ = current;
  viewport()->update();
}

QRect SourceView::match_rect(const TextMatch& match) const {
  if (match.line < 1 || match.line > lines_.size()) return {};
  const QFontMetrics fm(font());
  const QString& line = lines_[match.line - 1];
  const int x =
      layout_.text_x() + 4 - horizontalScrollBar()->value() + fm.horizontalAdvance(line.left(match.column));
  const int width = std::max(2, fm.horizontalAdvance(line.mid(match.column, match.length)));
  return to_viewport(QRect(x, layout_.row_y(match.line), width, layout_.metrics().row_height));
}

void SourceView::show_match(const TextMatch& match) {
  if (match.line < first_visible_line() || match.line >= last_visible_line())
    verticalScrollBar()->setValue(layout_.row_y(match.line) - viewport()->height() / 3);
  const QRect r = match_rect(match);
  const int text_x = layout_.text_x();
  if (r.left() < text_x || r.right() > viewport()->width())  // off to a side: bring it in
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + r.left() - text_x - text_width() / 3);
  viewport()->update();
}

void SourceView::paint_find_matches(QPainter& p, int first, int last) {
  // Cut to the text column by hand: the SVG export's painter does not clip (Qt 6.4).
  const QRect text_area(layout_.text_x(), 0, viewport()->width() - layout_.text_x(), viewport()->height());
  for (std::size_t i = 0; i < find_matches_.size(); ++i) {
    const auto& m = find_matches_[i];
    if (m.line < first || m.line > last) continue;
    p.fillRect(match_rect(m).intersected(text_area),
               static_cast<int>(i) == find_current_ ? kCurrentMatch : kMatchTint);
  }
}

void SourceView::paint_text(QPainter& p, int first, int last) {
  const QFontMetrics fm(font());
  const int hs = horizontalScrollBar()->value();
  const int text_x = layout_.text_x();
  // The characters wholly in view, so that nothing depends on clipping: the SVG export's painter
  // has none (Qt 6.4), and a long line would run over the analysis pane.
  const int skip = hs - 4;
  const int room = viewport()->width() - text_x;
  p.save();
  p.setClipRect(QRect(text_x, 0, room, viewport()->height()));
  p.setPen(palette().color(QPalette::Text));
  for (int line = first; line <= last; ++line) {
    const QString& text = lines_[line - 1];
    int from = 0;
    int x = 0;
    while (from < text.size() && x < skip) x += fm.horizontalAdvance(text[from++]);
    int to = from;
    int right = x;
    while (to < text.size() && right + fm.horizontalAdvance(text[to]) <= skip + room)
      right += fm.horizontalAdvance(text[to++]);
    const QRect row = to_viewport(
        QRect(text_x + 4 - hs + x, layout_.row_y(line), right - x + 1, layout_.metrics().row_height));
    p.drawText(row, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextDontClip, text.mid(from, to - from));
  }
  p.restore();
}

void SourceView::update_scrollbars() {
  const int h = viewport()->height();
  verticalScrollBar()->setRange(0, std::max(0, layout_.content_height() - h));
  verticalScrollBar()->setPageStep(h);
  verticalScrollBar()->setSingleStep(layout_.metrics().row_height);
  horizontalScrollBar()->setRange(0, std::max(0, longest_line_px_ + 20 - text_width()));
  horizontalScrollBar()->setPageStep(text_width());
}

void SourceView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  update_scrollbars();
}

int SourceView::text_width() const { return std::max(0, viewport()->width() - layout_.text_x()); }

std::int64_t SourceView::line_time(int line) const {
  return line >= 1 && line <= static_cast<int>(line_times_.size())
             ? line_times_[static_cast<std::size_t>(line - 1)]
             : 0;
}

int SourceView::first_visible_line() const {
  return layout_.line_count() == 0 ? 0 : verticalScrollBar()->value() / layout_.metrics().row_height + 1;
}

int SourceView::last_visible_line() const {
  if (layout_.line_count() == 0) return 0;
  const int last =
      (verticalScrollBar()->value() + viewport()->height() - 1) / layout_.metrics().row_height + 1;
  return std::min(last, layout_.line_count());
}

void SourceView::scroll_to_line(int line) {
  if (line < 1 || line > layout_.line_count()) return;
  if (line >= first_visible_line() && line < last_visible_line()) return;  // already in view
  // A third from the top: the scope's start with some of what comes before.
  verticalScrollBar()->setValue(layout_.row_y(line) - viewport()->height() / 3);
}

QRect SourceView::to_viewport(const QRect& content) const {
  return content.translated(0, -verticalScrollBar()->value());
}

QPoint SourceView::to_content(QPoint p) const { return {p.x(), p.y() + verticalScrollBar()->value()}; }

QColor SourceView::number_color(int line) const {
  const int g = gray_level(shade_intensity(static_cast<double>(line_time(line)),
                                           static_cast<double>(max_line_time_), context_->shading()));
  return {g, g, g};
}

QColor SourceView::scope_bar_color(std::uint32_t id) const {
  const auto* st = analysis_ ? analysis_->scope(id) : nullptr;
  if (!st) return Qt::white;
  // Against the total: scope 0 (all of the time) is the darkest.
  const int g =
      gray_level(shade_intensity(static_cast<double>(pp_total(st->inclusive)),
                                 static_cast<double>(analysis_->total_pp_ps()), context_->shading()));
  return {g, g, g};
}

void SourceView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  p.fillRect(viewport()->rect(), palette().color(QPalette::Base));
  if (!analysis_ || layout_.line_count() == 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter,
               analysis_ ? tr("This run has no source text to show.")
                         : tr("Open a CARNIVAL database (File > Open)."));
    return;
  }
  const auto& m = layout_.metrics();
  const int first = first_visible_line();
  const int last = last_visible_line();
  const std::int64_t selected = context_->scope();
  const auto* selected_stats = analysis_->scope(selected);
  const bool selected_here = selected_stats && QString::fromStdString(selected_stats->scope.file) == file_;

  // Text column: the selected scope's lines tinted, the selected line stronger, a race's lines red.
  const int text_x = layout_.text_x();
  const auto marks = race_marks();
  for (int line = first; line <= last; ++line) {
    const QRect row =
        to_viewport(QRect(text_x, layout_.row_y(line), viewport()->width() - text_x, m.row_height));
    if (context_->file() == file_ && line == context_->line())
      p.fillRect(row, kLineTint);
    else if (std::any_of(marks.begin(), marks.end(), [&](const RaceMark& r) { return r.line == line; }))
      p.fillRect(row, kRaceTint);
    else if (selected_here && line >= selected_stats->scope.begin_line &&
             line <= selected_stats->scope.end_line)
      p.fillRect(row, kScopeTint);
  }
  paint_find_matches(p, first, last);
  paint_text(p, first, last);
  paint_race_marks(p, marks);

  // Line numbers, shaded by the line's share of the time.
  for (int line = first; line <= last; ++line) {
    const QRect cell = to_viewport(layout_.number_rect(line));
    const QColor gray = number_color(line);
    p.fillRect(cell, gray);
    p.setPen(gray.value() < 128 ? Qt::white : Qt::black);
    p.drawText(cell.adjusted(0, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight, QString::number(line));
  }
  paint_bars(p);
}

void SourceView::paint_race_marks(QPainter& p, const std::vector<RaceMark>& marks) {
  // A red edge on the left and a label after the code, so that a race's lines are found at a
  // glance whichever line is selected. The label never hides the code: where the line is too
  // long, a short "race N" sits at the right edge (the tooltip has the rest).
  const int text_x = layout_.text_x();
  const int row_height = layout_.metrics().row_height;
  const int right = viewport()->width() - 4;
  const QFontMetrics fm(font());
  for (const auto& mark : marks) {
    if (mark.line < first_visible_line() || mark.line > last_visible_line()) continue;
    const QRect row = to_viewport(QRect(text_x, layout_.row_y(mark.line), right - text_x, row_height));
    p.fillRect(QRect(row.left(), row.top(), 4, row.height()), kRaceMark);
    const int code_end =
        text_x + 4 - horizontalScrollBar()->value() + fm.horizontalAdvance(lines_[mark.line - 1]) + 16;
    QString label = mark.label;
    int width = fm.horizontalAdvance(label) + 12;
    int left = std::max(code_end, text_x + 8);
    if (left + width > right) {
      label = mark.short_label;
      width = fm.horizontalAdvance(label) + 12;
      left = std::max(text_x + 8, right - width);
    }
    const QRect badge(left, row.top() + 1, width, row.height() - 2);
    p.fillRect(badge, kRaceMark);
    p.setPen(Qt::white);
    p.drawText(badge, Qt::AlignCenter, label);
  }
}

void SourceView::paint_bars(QPainter& p) {
  // Scope bars (shaded by inclusive time) and category bars (PP above, CP below).
  const std::int64_t selected = context_->scope();
  const QRect visible(0, verticalScrollBar()->value(), viewport()->width(), viewport()->height());
  for (const auto& s : layout_.scopes()) {
    const auto* st = analysis_->scope(s.id);
    if (!st) continue;
    const QRect bar = layout_.scope_bar_rect(s.id);
    if (bar.intersects(visible)) {
      // Cut to the view (its edges just outside): the SVG export's painter does not clip, and a
      // long scope's bar would run over the choosers and the legend.
      const QRect r = to_viewport(bar.intersected(visible.adjusted(0, -2, 0, 2)));
      p.fillRect(r, scope_bar_color(s.id));
      p.setPen(s.id == selected ? QPen(kSelectionOutline, 2) : QPen(QColor(150, 150, 150), 1));
      p.drawRect(r.adjusted(0, 0, -1, -1));
    }
    const QRect hbar = layout_.category_bar_rect(s.id);
    if (hbar.intersects(visible)) {
      const QRect r = to_viewport(hbar);
      // Without protocol controllers the PP row takes the whole bar.
      const int pp_height = analysis_->has_cp() ? std::max(1, r.height() * 3 / 5) : r.height();
      std::vector<QColor> pp_colors, cp_colors;
      for (std::size_t k = 0; k < 4; ++k) pp_colors.push_back(category_color(*analysis_, k));
      for (std::size_t k = 4; k < 7; ++k) cp_colors.push_back(category_color(*analysis_, k));
      paint_stacked_bar(p, QRect(r.left(), r.top(), r.width(), pp_height),
                        std::span<const std::int64_t>(st->inclusive.data(), 4), pp_colors);
      if (analysis_->has_cp())
        paint_stacked_bar(p, QRect(r.left(), r.top() + pp_height, r.width(), r.height() - pp_height),
                          std::span<const std::int64_t>(st->inclusive.data() + 4, 3), cp_colors);
      p.setPen(s.id == selected ? QPen(kSelectionOutline, 2) : QPen(QColor(150, 150, 150), 1));
      p.setBrush(Qt::NoBrush);
      p.drawRect(r.adjusted(-1, -1, 0, 0));
    }
  }
}

QString SourceView::tooltip_at(QPoint viewport_point) const {
  if (!analysis_) return {};
  const SourceHit hit = layout_.hit(to_content(viewport_point));
  const auto total = analysis_->total_pp_ps();
  const auto* st = analysis_->scope(hit.scope);
  switch (hit.area) {
    case SourceHit::Area::ScopeBar:
      if (!st) return {};
      return tr("<b>%1</b> (%2, %3)<br>inclusive %4 = %5 of the PP time<br>exclusive %6 = %7"
                "<br>imbalance (slowest node / mean) %8<br><i>click: profile per processor</i>")
          .arg(QString::fromStdString(st->scope.name), QString::fromStdString(st->scope.kind),
               QString::fromStdString(analysis_->scope_location(hit.scope)),
               time_text(pp_total(st->inclusive)), percent_text(share(pp_total(st->inclusive), total)),
               time_text(pp_total(st->exclusive)), percent_text(share(pp_total(st->exclusive), total)))
          .arg(analysis_->imbalance(static_cast<std::uint32_t>(hit.scope)), 0, 'f', 2);
    case SourceHit::Area::CategoryBar: {
      if (!st) return {};
      QString text = tr("<b>%1</b>: inclusive time by category").arg(QString::fromStdString(st->scope.name));
      const auto pp = pp_total(st->inclusive), cp = cp_total(st->inclusive);
      for (std::size_t k = 0; k < (analysis_->has_cp() ? kCategories : 4); ++k)
        text += tr("<br><span style=\"color:%1\">&#9632;</span> %2: %3 (%4 of %5)")
                    .arg(QString::fromStdString(analysis_->style(k).color),
                         QString::fromStdString(analysis_->style(k).name), time_text(st->inclusive[k]),
                         percent_text(share(st->inclusive[k], k < 4 ? pp : cp)), k < 4 ? tr("PP") : tr("CP"));
      return text + tr("<br><i>click: histogram</i>");
    }
    case SourceHit::Area::LineNumber:
    case SourceHit::Area::Text: {
      const auto owner = analysis_->innermost_scope_at(file_.toStdString(), hit.line);
      QString text =
          tr("line %1: %2 = %3 of the PP time%4")
              .arg(hit.line)
              .arg(time_text(line_time(hit.line)), percent_text(share(line_time(hit.line), total)),
                   owner >= 0 ? tr(" (in %1)").arg(QString::fromStdString(analysis_->scope_name(owner)))
                              : QString());
      if (const auto* line = analysis_->line_scope(file_.toStdString(), hit.line))
        for (std::size_t k = 0; k < 4; ++k)  // the line's own time by PP category
          if (line->exclusive[k] > 0)
            text += tr("<br><span style=\"color:%1\">&#9632;</span> %2: %3")
                        .arg(QString::fromStdString(analysis_->style(k).color),
                             QString::fromStdString(analysis_->style(k).name), time_text(line->exclusive[k]));
      for (const auto& mark : race_marks())
        if (mark.line == hit.line) text += QStringLiteral("<br>") + mark.details;
      return text;
    }
    case SourceHit::Area::None:
      return {};
  }
  return {};
}

bool SourceView::viewportEvent(QEvent* event) {
  return show_tooltip(event, viewport(), [this](QPoint p) { return tooltip_at(p); }) ||
         QAbstractScrollArea::viewportEvent(event);
}

void SourceView::mousePressEvent(QMouseEvent* event) {
  if (!analysis_ || event->button() != Qt::LeftButton) return;
  const SourceHit hit = layout_.hit(to_content(event->position().toPoint()));
  switch (hit.area) {
    case SourceHit::Area::ScopeBar:
      context_->select_scope(hit.scope);
      emit scope_bar_clicked(hit.scope);
      break;
    case SourceHit::Area::CategoryBar:
      context_->select_scope(hit.scope);
      emit category_bar_clicked(hit.scope);
      break;
    case SourceHit::Area::LineNumber:
    case SourceHit::Area::Text:
      context_->select_line(file_, hit.line);
      break;
    case SourceHit::Area::None:
      break;
  }
}

}  // namespace ncp2::gui
