#pragma once
// Export from the GUI: any widget as PNG (its pixels) or SVG (drawn again through QSvgGenerator,
// so text stays text and bars stay rectangles), any table as CSV (RFC 4180: the rows in the
// table's order, the cells as shown; a bar as its segments in picoseconds; nested rows with
// their depth). File > Export and the tables' context menu use these.
#include <QString>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace ncp2::gui {

// The model's rows (top level, in its order) with a header line. A model with roles::Depth in
// its first column gets a leading "Depth" column.
QString table_csv(const QAbstractItemModel& model);

// Each returns an empty string when written, else why not (in the project's words).
QString write_csv(const QAbstractItemModel& model, const QString& path);
QString write_png(QWidget* widget, const QString& path);
QString write_svg(QWidget* widget, const QString& path, const QString& title);

// The table's context menu: "Copy as CSV" and "Export as CSV…" (a file dialog).
void add_table_menu(QTableView* table);

}  // namespace ncp2::gui
