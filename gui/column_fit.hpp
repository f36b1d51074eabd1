#pragma once
// Column widths of the analysis tables, fitted to the table's width: every header readable, the
// times in sight, the bar column between a minimum and a maximum, and one flexible column (a
// location, elided in the middle so that its ":line" stays, or a wrapped description) taking
// what is left. Refitted whenever the table's width changes; the views refit after new rows.
class QTableView;

namespace ncp2::gui {

// px: a location column keeps at least this much (half of it keeps ":begin-end)" whole).
inline constexpr int kLocationMinWidth = 140;

struct ColumnFit {
  int bar = -1;          // the bar column, or -1
  int bar_min = 60;      // px: still a readable bar
  int bar_max = 170;     // px: wider says nothing more
  int flexible = -1;     // the column that gets (or gives) what is left, or -1
  int flexible_min = 0;  // px: the least it keeps (a location: room for "…:begin-end)")
  int text_max = 180;    // px: other text columns are capped (long names elide, tooltips have them)
};

// Sets the widths once (for the table's current width and rows).
void fit_columns(QTableView* table, const ColumnFit& fit);
// Sets them now and again whenever the table's width changes.
void keep_columns_fitted(QTableView* table, const ColumnFit& fit);

}  // namespace ncp2::gui
