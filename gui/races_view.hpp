#pragma once
// The data races of a run with --detect-races (docs/schema.md, table races): one row per race,
// its two accesses side by side. A click selects the race: the source view marks both lines and
// shows the first access (the Second column, or the button below the table, the other one).
#include <cstdint>
#include <memory>
#include <vector>

#include <QWidget>

#include "gui/analysis_context.hpp"
#include "gui/models.hpp"

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace ncp2::gui {

class MoreRowsBar;

// "node 0 write\nphases.cpp:205 · update": one access on two lines, the file without its
// directories.
QString race_access_label(const Analysis& a, const carnival::RaceAccess& access);
// "[3,0,2]": a node's vector time.
QString vector_time_label(const std::vector<std::uint32_t>& vt);
// "grid+1024", with " @ 0x7f00" when the store has the address.
QString race_location_label(const carnival::RaceRow& race);
// Both accesses whole: sites, scopes, intervals and vector times (the rows' tooltip).
QString race_details(const Analysis& a, const carnival::RaceRow& race);

// The races, by id.
class RacesModel : public LimitedTableModel {
  Q_OBJECT
 public:
  // The accesses last: the widest, and the second stretches to the table's edge.
  enum Column { Id, Location, Occurrences, First, Second, ColumnCount };
  using LimitedTableModel::LimitedTableModel;
  void set_analysis(std::shared_ptr<const Analysis> a);
  [[nodiscard]] const carnival::RaceRow* race_at(int row) const;
  [[nodiscard]] int row_of_race(std::uint32_t id) const;  // -1 when not shown

  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 protected:
  [[nodiscard]] int total() const override;

 private:
  [[nodiscard]] QVariant display(const carnival::RaceRow& r, int column) const;
  [[nodiscard]] QVariant sort_key(const carnival::RaceRow& r, int column) const;

  std::shared_ptr<const Analysis> a_;
};

// The Races tab: what detection found (or that it was off), the table, the selected race's
// accesses with a button each to show its line.
class RacesView : public QWidget {
  Q_OBJECT
 public:
  explicit RacesView(AnalysisContext* context, QWidget* parent = nullptr);
  [[nodiscard]] QTableView* table() const { return table_; }
  [[nodiscard]] RacesModel* model() const { return model_; }
  [[nodiscard]] QString title() const;
  [[nodiscard]] QString details() const;
  [[nodiscard]] QPushButton* first_button() const { return first_; }
  [[nodiscard]] QPushButton* second_button() const { return second_; }
  // "Races", "Races (3)": the tab's title for the open run.
  [[nodiscard]] QString tab_title() const;

 private:
  void refresh();
  void cell_chosen(const QModelIndex& proxy_index);
  void follow_race(quint32 id);

  AnalysisContext* context_;
  RacesModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QLabel* title_;
  MoreRowsBar* more_;
  QWidget* detail_panel_;
  QLabel* details_;
  QPushButton* first_;
  QPushButton* second_;
  bool following_ = false;  // selecting the row of a race selected elsewhere
};

}  // namespace ncp2::gui
