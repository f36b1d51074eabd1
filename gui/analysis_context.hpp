#pragma once
// The one shared selection every view observes (GUIDE §4): the open run's analysis, the active
// scope, the active line (in a file), the selected data race, the node filter and the shading map.
// Clicking anywhere sets it here; every view follows the signals.
#include <cstdint>
#include <memory>

#include <QObject>
#include <QString>

#include "gui/analysis.hpp"

namespace ncp2::gui {

class AnalysisContext : public QObject {
  Q_OBJECT
 public:
  explicit AnalysisContext(QObject* parent = nullptr);

  // The open run (null when none) analysed for the current node filter.
  [[nodiscard]] std::shared_ptr<const Analysis> analysis() const { return analysis_; }
  [[nodiscard]] std::int64_t scope() const { return scope_; }  // -1: none
  [[nodiscard]] const QString& file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }                // 0: none
  [[nodiscard]] int node_filter() const { return node_filter_; }  // -1: all nodes
  [[nodiscard]] Shading shading() const { return shading_; }
  // The selected data race (0: none) and its row (null when none).
  [[nodiscard]] std::uint32_t race() const { return race_; }
  [[nodiscard]] const carnival::RaceRow* selected_race() const;
  // Whether a race access's line can be shown: its file is stored and the line is known.
  [[nodiscard]] bool can_show(const carnival::RaceAccess& access) const;

  // A new run: node filter back to all, the selection on the hottest scope below the root.
  void set_run(std::shared_ptr<const RunSummary> summary);
  void clear();

 public slots:  // NOLINT(readability-redundant-access-specifiers): "slots" marks them for moc
  // Selects the scope and moves the line to its first line (in its file).
  void select_scope(qint64 id);
  // Selects a line, and the innermost scope that holds it.
  void select_line(const QString& file, int line);
  // Selects a race (its two lines are marked) and moves the line to one of its accesses (side 0:
  // the first, 1: the second) when that line can be shown. Returns whether the line moved.
  bool select_race(quint32 id, int side = 0);
  void set_node_filter(int node);
  void set_shading(ncp2::gui::Shading s);

 signals:
  void analysis_changed();  // new run or node filter: every figure may have changed
  void scope_changed(qint64 id);
  void line_changed(const QString& file, int line);
  void shading_changed();
  void race_changed(quint32 id);

 private:
  std::shared_ptr<const RunSummary> summary_;
  std::shared_ptr<const Analysis> analysis_;
  std::int64_t scope_ = -1;
  QString file_;
  int line_ = 0;
  int node_filter_ = -1;
  std::uint32_t race_ = 0;
  Shading shading_ = Shading::Sqrt;
};

}  // namespace ncp2::gui
