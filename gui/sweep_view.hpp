#pragma once
// A sweep (`ncp2 sweep`'s DIR/sweep.db, or DIR): its plots — the speedup curves and the
// categories per point, the same figures as DIR/speedup.svg and categories.svg — beside a table of
// its points. A click on a point (a marker, its bars, its row) opens that point's run in the
// window; with Ctrl (or after "Compare with…") the open run is compared with that point's. A
// point that failed or did not run says why instead. The sweep is read on the GUI thread: its
// database holds a few rows per point.
#include <cstdint>
#include <memory>

#include <QAbstractTableModel>
#include <QWidget>

#include "sweep/sweep_reader.hpp"

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace ncp2::gui {

class SweepPlot;

class SweepPointsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // What tells the points apart and their results first; the long settings and messages last.
  enum Column { Name, Machine, Nodes, Speedup, VirtualTime, Status, Settings, Message, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void set_sweep(std::shared_ptr<const sweep::Sweep> sweep);
  [[nodiscard]] const sweep::SweepPoint* point_at(int row) const;
  [[nodiscard]] int row_of(std::int64_t point_id) const;  // -1: none

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::shared_ptr<const sweep::Sweep> sweep_;
};

class SweepView : public QWidget {
  Q_OBJECT
 public:
  explicit SweepView(QWidget* parent = nullptr);

  // Reads the sweep (a sweep.db or its folder) and shows it; returns the error, or "".
  QString open(const QString& path);
  [[nodiscard]] const sweep::Sweep* sweep() const { return sweep_.get(); }

  // What a click on a point does: opens its run, or (`compare`, or "Compare with…" pressed, and a
  // point's run open) compares the open run with it, or says why it cannot.
  void activate_point(std::int64_t id, bool compare);
  // The window opened a run: if it is one of the points, that point is the open one.
  void run_opened(const QString& path);

  [[nodiscard]] SweepPlot* speedup_plot() const { return speedup_; }
  [[nodiscard]] SweepPlot* categories_plot() const { return categories_; }
  [[nodiscard]] QTabWidget* plots() const { return plots_; }
  [[nodiscard]] QTableView* table() const { return table_; }
  [[nodiscard]] SweepPointsModel* model() const { return model_; }
  [[nodiscard]] QPushButton* compare_button() const { return compare_button_; }
  [[nodiscard]] QString message() const;
  [[nodiscard]] std::int64_t opened_point() const { return opened_; }
  [[nodiscard]] std::int64_t compared_point() const { return compared_; }

 signals:
  void open_run_requested(const QString& path);
  void compare_requested(const QString& path);
  void point_unavailable(const QString& message);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void say(const QString& text, bool problem);
  void refresh_highlight();
  [[nodiscard]] QString describe(std::int64_t id) const;
  [[nodiscard]] QString why_unavailable(const sweep::SweepPoint& p) const;

  std::shared_ptr<const sweep::Sweep> sweep_;
  QLabel* title_;
  QLabel* message_;
  QPushButton* compare_button_;
  QTabWidget* plots_;
  SweepPlot* speedup_;
  SweepPlot* categories_;
  SweepPointsModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  std::int64_t opened_ = -1;
  std::int64_t compared_ = -1;
  Qt::KeyboardModifiers table_modifiers_;  // of the last press on the table
};

}  // namespace ncp2::gui
