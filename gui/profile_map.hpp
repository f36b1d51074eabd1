#pragma once
// The Profile Map (CARNIVAL's map: the source view's vertical and horizontal bars condensed):
// in one mode every scope under its parent, a bar of its categories, sortable within each level,
// foldable; in the other the scopes x processors matrix. Both follow the AnalysisContext and set
// it: a row selects its scope, a matrix cell its scope and node.
#include <QWidget>

#include "gui/analysis_context.hpp"
#include "gui/profile_map_model.hpp"

class QComboBox;
class QLabel;
class QStackedWidget;
class QTableView;

namespace ncp2::gui {

class MoreRowsBar;

class ProfileMapView : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { Nesting, Matrix };
  explicit ProfileMapView(AnalysisContext* context, QWidget* parent = nullptr);

  [[nodiscard]] QTableView* table() const { return table_; }  // the nesting
  [[nodiscard]] ProfileMapModel* model() const { return model_; }
  [[nodiscard]] QSortFilterProxyModel* proxy() const { return proxy_; }
  [[nodiscard]] QTableView* matrix_table() const { return matrix_table_; }
  [[nodiscard]] ScopeNodeMatrixModel* matrix_model() const { return matrix_; }
  [[nodiscard]] QComboBox* mode_chooser() const { return modes_; }
  [[nodiscard]] Mode mode() const;
  void set_mode(Mode mode);
  // The table in front (for File > Export).
  [[nodiscard]] QTableView* current_table() const;

 protected:
  // A press on a scope's arrow folds or unfolds it; so do Left and Right on the current scope.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* build_nesting(QWidget* parent);
  QWidget* build_matrix(QWidget* parent);
  void refit_matrix();
  void follow_scope(qint64 id);
  void follow_in_matrix();
  void matrix_clicked(const QModelIndex& index);
  void update_title();
  [[nodiscard]] bool on_arrow(QPoint viewport_point) const;
  // Folds (fold true) or unfolds the current scope; false when that changes nothing.
  bool fold_current(bool fold);

  AnalysisContext* context_;
  ProfileMapModel* model_;
  NestingSortProxy* proxy_;
  ScopeNodeMatrixModel* matrix_;
  QLabel* title_ = nullptr;
  QComboBox* modes_ = nullptr;
  QStackedWidget* pages_ = nullptr;
  QTableView* table_ = nullptr;
  MoreRowsBar* more_ = nullptr;
  QTableView* matrix_table_ = nullptr;
};

}  // namespace ncp2::gui
