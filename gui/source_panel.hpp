#pragma once
// The source view with what surrounds it: the file and shading choosers and the shading legend
// above it, the find bar (Ctrl+F) below it.
#include <QWidget>

#include "gui/analysis_context.hpp"

class QBoxLayout;
class QComboBox;
class QHBoxLayout;

namespace ncp2::gui {

class FindBar;
class ShadingLegend;
class SourceView;

// The source view with its file chooser and shading legend above it.
class SourcePanel : public QWidget {
  Q_OBJECT
 public:
  explicit SourcePanel(AnalysisContext* context, QWidget* parent = nullptr);
  [[nodiscard]] SourceView* view() const { return view_; }
  [[nodiscard]] QComboBox* file_chooser() const { return files_; }
  [[nodiscard]] QComboBox* shading_chooser() const { return shading_; }
  [[nodiscard]] ShadingLegend* shading_legend() const { return legend_; }
  [[nodiscard]] FindBar* find_bar() const { return find_; }

 protected:
  // A narrow panel puts the shading legend under the choosers rather than cutting its scale.
  void resizeEvent(QResizeEvent* event) override;

 private:
  void refill_files();
  void place_legend();  // beside the choosers when it fits whole, else under them

  AnalysisContext* context_;
  SourceView* view_;
  QComboBox* files_;
  QComboBox* shading_;
  ShadingLegend* legend_;
  FindBar* find_ = nullptr;
  QBoxLayout* header_ = nullptr;  // the choosers, then the legend: in a row or a column
  QHBoxLayout* choosers_ = nullptr;
};

}  // namespace ncp2::gui
