#pragma once
// Find in the source view (Ctrl+F): a bar under the source with the text to find, next and
// previous (Enter, Shift+Enter, F3), the count ("2 of 7"), "no match", and a note when the
// search wrapped past the end. Every match of the shown file is highlighted, the current one
// more strongly. Case-insensitive, plain text.
#include <vector>

#include <QWidget>

#include "gui/text_find.hpp"

class QLabel;
class QLineEdit;
class QToolButton;

namespace ncp2::gui {

class SourceView;

class FindBar : public QWidget {
  Q_OBJECT
 public:
  FindBar(SourceView* view, QWidget* parent = nullptr);
  [[nodiscard]] QLineEdit* field() const { return field_; }
  [[nodiscard]] QString status() const;
  [[nodiscard]] const std::vector<TextMatch>& matches() const { return matches_; }
  [[nodiscard]] int current() const { return current_; }  // -1: none

 public slots:  // NOLINT(readability-redundant-access-specifiers): "slots" marks them for moc
  void open();  // shows the bar, the field focused with its text selected
  void find_next();
  void find_previous();
  void close_bar();  // hides it and clears the highlights

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void search();  // the text or the file changed: find again from the first shown line
  void step(bool forward);
  void show_current(bool wrapped);

  SourceView* view_;
  QLineEdit* field_;
  QToolButton* previous_;
  QToolButton* next_;
  QLabel* status_;
  std::vector<TextMatch> matches_;
  int current_ = -1;
};

}  // namespace ncp2::gui
