#pragma once
// The views beside the source: CPWait Map (with its causes panel), a scope's profile per
// processor, a scope's category histogram (the Profile Map has its own files, profile_map.*, and
// comes with this header). Each follows the AnalysisContext and sets it.
#include <QWidget>

#include "gui/analysis_context.hpp"
#include "gui/background_task.hpp"
#include "gui/models.hpp"
#include "gui/profile_map.hpp"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ncp2::gui {

class MoreRowsBar;

// A causes query's answer, or why it failed (errors do not cross threads as exceptions).
struct CausesResult {
  int generation = 0;
  Causes causes;
  QString error;
};

// One row per source of waiting; a click selects the scope and lists the causes of the row's
// synchronization delay (queried on a worker thread), each of which selects its scope.
class CPWaitView : public QWidget {
  Q_OBJECT
 public:
  explicit CPWaitView(AnalysisContext* context, QWidget* parent = nullptr);
  [[nodiscard]] QTableView* table() const { return table_; }
  [[nodiscard]] QTableView* causes_table() const { return causes_table_; }
  [[nodiscard]] CPWaitMapModel* model() const { return model_; }
  [[nodiscard]] CausesModel* causes_model() const { return causes_; }
  [[nodiscard]] QLineEdit* filter() const { return filter_; }
  [[nodiscard]] QSortFilterProxyModel* proxy() const { return proxy_; }
  // Selects a row of the model (source row) as a click would.
  void select_row(int source_row);

 signals:
  void causes_ready();  // the causes panel shows the selected row's causes

 private:
  QWidget* build_map(QWidget* parent);     // the map's table and its "more rows" bar
  QWidget* build_causes(QWidget* parent);  // the causes panel: title, table, "more", note
  // The causes of the queried row arrived (or failed): fill the panel and say what they explain.
  void show_causes(const CausesResult& result);
  void row_activated(const QModelIndex& proxy_index);
  void query_causes(const CPWaitRow& row);
  // A scope selected elsewhere: select its first (largest) row and show its causes, without
  // selecting the scope back (that would move the selected line to the scope's first line).
  void follow_scope(qint64 id);

  AnalysisContext* context_;
  CPWaitMapModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_ = nullptr;
  QLineEdit* filter_;
  MoreRowsBar* more_ = nullptr;
  CausesModel* causes_;
  QSortFilterProxyModel* causes_proxy_;
  QTableView* causes_table_ = nullptr;
  QLabel* causes_title_ = nullptr;
  QLabel* causes_note_ = nullptr;
  MoreRowsBar* causes_more_ = nullptr;
  BackgroundTask<CausesResult> watcher_;
  int generation_ = 0;
  bool following_ = false;  // selecting a row for follow_scope: do not select its scope again
};

// The selected scope's time on each processor, stacked by category; sortable; imbalance.
class ScopeProfileView : public QWidget {
  Q_OBJECT
 public:
  explicit ScopeProfileView(AnalysisContext* context, QWidget* parent = nullptr);
  [[nodiscard]] ScopeProfileModel* model() const { return model_; }
  [[nodiscard]] QTableView* table() const { return table_; }
  [[nodiscard]] QString title() const;

 private:
  void refresh();
  AnalysisContext* context_;
  ScopeProfileModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QLabel* title_;
};

// The selected scope's time by category, as horizontal bars with the times.
class HistogramView : public QWidget {
  Q_OBJECT
 public:
  explicit HistogramView(AnalysisContext* context, QWidget* parent = nullptr);
  [[nodiscard]] CategoryHistogramModel* model() const { return model_; }
  [[nodiscard]] QTableView* table() const { return table_; }

 private:
  void refresh();
  AnalysisContext* context_;
  CategoryHistogramModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QLabel* title_;
};

}  // namespace ncp2::gui
