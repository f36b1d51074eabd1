#pragma once
// Two runs side by side (File > Compare with…): the open run is A, the chosen file B; one row per
// run total, scope (matched by name, file and lines), category, wait kind and operation, wait
// part, with A, B, B-A and B/A (carnival/compare.hpp, also `ncp2 compare`). What makes the runs
// hard to compare (different programs, node counts, partial runs) is said above the table.
// Clicking a scope row selects that scope of the open run (A), when A has it.
#include <memory>

#include <QAbstractTableModel>
#include <QWidget>

#include "carnival/compare.hpp"
#include "gui/analysis_context.hpp"
#include "gui/background_task.hpp"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ncp2::gui {

// A comparison computed on a worker thread, or why it failed.
struct CompareResult {
  std::shared_ptr<const carnival::Comparison> comparison;  // null on error
  QString error;
};
CompareResult compare_files(const QString& a, const QString& b);  // never throws

class CompareModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Section, What, A, B, Difference, Ratio, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void set_comparison(std::shared_ptr<const carnival::Comparison> c);
  [[nodiscard]] const carnival::CompareRow* row_at(int row) const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::shared_ptr<const carnival::Comparison> c_;
};

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(AnalysisContext* context, QWidget* parent = nullptr);
  ~CompareView() override;

  [[nodiscard]] CompareModel* model() const { return model_; }
  [[nodiscard]] QTableView* table() const { return table_; }
  [[nodiscard]] QString title_text() const;
  [[nodiscard]] bool is_loading() const { return watcher_.running(); }

  // Compares the two files on a worker thread; compared() follows.
  void compare(const QString& a, const QString& b);
  // The same, waiting; returns the error or an empty string (headless use and tests).
  QString compare_and_wait(const QString& a, const QString& b);

 signals:
  void compared(const QString& error);  // empty: the table shows the comparison

 private:
  void show_result(const CompareResult& result);
  void row_clicked(const QModelIndex& proxy_index);

  AnalysisContext* context_;
  CompareModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QLabel* title_;
  QLineEdit* filter_;
  BackgroundTask<CompareResult> watcher_;
};

}  // namespace ncp2::gui
