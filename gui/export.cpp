#include "gui/export.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>
#include <QPainter>
#include <QSaveFile>
#include <QStringList>
#include <QSvgGenerator>
#include <QTableView>

#include "gui/models.hpp"

namespace ncp2::gui {

namespace {

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
QString csv_field(QString text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
    return text;
  text.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + text + QLatin1Char('"');
}

// What a cell shows; a bar (no text) as its segments in picoseconds.
QString cell_text(const QModelIndex& index) {
  const QVariant bar = index.data(roles::BarValues);
  if (!bar.isValid()) return index.data(Qt::DisplayRole).toString();
  QStringList segments;
  for (const auto& v : bar.toList()) segments << QString::number(v.toLongLong());
  return segments.join(QLatin1Char(' '));
}

QString write_file(const QString& path, const QByteArray& bytes) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
    return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
  return {};
}

}  // namespace

QString table_csv(const QAbstractItemModel& model) {
  const int columns = model.columnCount();
  const bool nested = model.rowCount() > 0 && model.index(0, 0).data(roles::Depth).isValid();
  QStringList line;
  if (nested) line << QStringLiteral("Depth");
  for (int c = 0; c < columns; ++c) line << csv_field(model.headerData(c, Qt::Horizontal).toString());
  QString out = line.join(QLatin1Char(',')) + QStringLiteral("\r\n");
  for (int r = 0; r < model.rowCount(); ++r) {
    line.clear();
    if (nested) line << QString::number(model.index(r, 0).data(roles::Depth).toInt());
    for (int c = 0; c < columns; ++c) line << csv_field(cell_text(model.index(r, c)));
    out += line.join(QLatin1Char(',')) + QStringLiteral("\r\n");
  }
  return out;
}

QString write_csv(const QAbstractItemModel& model, const QString& path) {
  return write_file(path, table_csv(model).toUtf8());
}

QString write_png(QWidget* widget, const QString& path) {
  const QImage image = widget->grab().toImage();
  if (image.isNull()) return QStringLiteral("nothing to draw: the view has no size");
  return image.save(path, "PNG") ? QString() : QStringLiteral("cannot write %1").arg(path);
}

QString write_svg(QWidget* widget, const QString& path, const QString& title) {
  if (widget->size().isEmpty()) return QStringLiteral("nothing to draw: the view has no size");
  QFile probe(path);  // QSvgGenerator says nothing when it cannot write
  if (!probe.open(QIODevice::WriteOnly))
    return QStringLiteral("cannot write %1: %2").arg(path, probe.errorString());
  probe.close();
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(widget->size());
  svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
  // The widget's own resolution: fonts in points then get the pixel sizes they have on screen
  // (the generator's default, 72 dpi, draws text a third larger than the boxes around it).
  svg.setResolution(widget->logicalDpiX());
  svg.setTitle(title);
  svg.setDescription(QStringLiteral("CARNIVAL (NCP2-Carnival)"));
  QPainter painter;
  if (!painter.begin(&svg)) return QStringLiteral("cannot write %1").arg(path);
  widget->render(&painter);
  painter.end();
  return {};
}

void add_table_menu(QTableView* table) {
  table->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* copy = new QAction(QObject::tr("Copy as CSV"), table);
  QObject::connect(copy, &QAction::triggered, table,
                   [table] { QApplication::clipboard()->setText(table_csv(*table->model())); });
  auto* save = new QAction(QObject::tr("Export as CSV…"), table);
  QObject::connect(save, &QAction::triggered, table, [table] {
    const QString path = QFileDialog::getSaveFileName(table, QObject::tr("Export the table as CSV"),
                                                      table->objectName() + QStringLiteral(".csv"),
                                                      QObject::tr("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty()) return;
    if (const QString error = write_csv(*table->model(), path); !error.isEmpty())
      QMessageBox::warning(table, QObject::tr("Export"), error);
  });
  table->addAction(copy);
  table->addAction(save);
}

}  // namespace ncp2::gui
