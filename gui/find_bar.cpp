#include "gui/find_bar.hpp"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include "gui/source_view.hpp"

namespace ncp2::gui {

FindBar::FindBar(SourceView* view, QWidget* parent)
    : QWidget(parent),
      view_(view),
      field_(new QLineEdit(this)),
      previous_(new QToolButton(this)),
      next_(new QToolButton(this)),
      status_(new QLabel(this)) {
  setObjectName(QStringLiteral("find-bar"));
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 2, 0, 2);
  row->addWidget(new QLabel(tr("Find:"), this));
  field_->setObjectName(QStringLiteral("find-field"));
  field_->setPlaceholderText(tr("text in this file"));
  field_->setClearButtonEnabled(true);
  field_->installEventFilter(this);
  row->addWidget(field_, 1);
  previous_->setText(tr("Previous"));
  previous_->setToolTip(tr("The previous match (Shift+Enter, Shift+F3)"));
  next_->setText(tr("Next"));
  next_->setToolTip(tr("The next match (Enter, F3)"));
  row->addWidget(previous_);
  row->addWidget(next_);
  status_->setObjectName(QStringLiteral("find-status"));
  row->addWidget(status_);
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("×"));
  close->setToolTip(tr("Close the find bar (Esc)"));
  row->addWidget(close);
  hide();

  connect(field_, &QLineEdit::textChanged, this, &FindBar::search);
  connect(previous_, &QToolButton::clicked, this, &FindBar::find_previous);
  connect(next_, &QToolButton::clicked, this, &FindBar::find_next);
  connect(close, &QToolButton::clicked, this, &FindBar::close_bar);
  connect(view_, &SourceView::file_shown, this, [this] {
    if (isVisible()) search();
  });
}

QString FindBar::status() const { return status_->text(); }

void FindBar::open() {
  show();
  field_->setFocus(Qt::ShortcutFocusReason);
  field_->selectAll();
  search();
}

void FindBar::close_bar() {
  hide();
  matches_.clear();
  current_ = -1;
  view_->set_find_matches({}, -1);
  view_->setFocus();
}

void FindBar::find_next() { step(true); }
void FindBar::find_previous() { step(false); }

void FindBar::search() {
  matches_ = find_matches(view_->lines(), field_->text());
  current_ = first_match_from(matches_, view_->first_visible_line());
  show_current(false);
}

void FindBar::step(bool forward) {
  if (!isVisible()) {
    open();
    return;
  }
  bool wrapped = false;
  current_ = step_match(static_cast<int>(matches_.size()), current_, forward, &wrapped);
  show_current(wrapped);
}

void FindBar::show_current(bool wrapped) {
  view_->set_find_matches(matches_, current_);
  const bool found = current_ >= 0;
  previous_->setEnabled(found);
  next_->setEnabled(found);
  field_->setStyleSheet(found || field_->text().isEmpty() ? QString()
                                                          : QStringLiteral("background:#f8d7da;"));
  if (field_->text().isEmpty()) {
    status_->clear();
    return;
  }
  if (!found) {
    status_->setText(tr("no match"));
    return;
  }
  view_->show_match(matches_[static_cast<std::size_t>(current_)]);
  QString text = tr("%1 of %2").arg(current_ + 1).arg(matches_.size());
  if (wrapped) text += tr(" (wrapped)");
  status_->setText(text);
}

void FindBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    close_bar();
    return;
  }
  QWidget::keyPressEvent(event);
}

// Enter in the field finds the next match, Shift+Enter the previous one.
bool FindBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == field_ && event->type() == QEvent::KeyPress) {
    const auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      step(!(key->modifiers() & Qt::ShiftModifier));
      return true;
    }
    if (key->key() == Qt::Key_Escape) {
      close_bar();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace ncp2::gui
