#include "gui/source_panel.hpp"

#include <QBoxLayout>
#include <QComboBox>
#include <QLabel>
#include <QVBoxLayout>

#include "gui/find_bar.hpp"
#include "gui/source_view.hpp"
#include "gui/widgets.hpp"

namespace ncp2::gui {

// --- SourcePanel -----------------------------------------------------------------------------

SourcePanel::SourcePanel(AnalysisContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      view_(new SourceView(context, this)),
      files_(new QComboBox(this)),
      shading_(new QComboBox(this)),
      legend_(new ShadingLegend(this)) {
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  header_ = new QBoxLayout(QBoxLayout::LeftToRight);
  choosers_ = new QHBoxLayout;
  auto* top = choosers_;
  top->addWidget(new QLabel(tr("File:"), this));
  files_->setObjectName(QStringLiteral("file-chooser"));
  files_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  top->addWidget(files_);
  top->addSpacing(12);
  top->addWidget(new QLabel(tr("Shading:"), this));
  for (auto s : {Shading::Linear, Shading::Sqrt, Shading::Log})
    shading_->addItem(to_string(s), static_cast<int>(s));
  shading_->setCurrentIndex(static_cast<int>(context_->shading()));
  shading_->setToolTip(
      tr("How a line's or scope's share of the time maps to gray: linear, square root or "
         "logarithmic (lifts the small values)"));
  top->addWidget(shading_);
  header_->addLayout(choosers_);
  header_->setAlignment(choosers_, Qt::AlignLeft);  // alone on their row, they keep their size
  // The legend's own minimum decides row or column (resizeEvent), not the splitter's share.
  legend_->setMinimumWidth(40);
  header_->addWidget(legend_, 1);
  column->addLayout(header_);
  column->addWidget(view_, 1);
  find_ = new FindBar(view_, this);
  column->addWidget(find_);

  connect(files_, &QComboBox::activated, this, [this](int i) { view_->show_file(files_->itemText(i)); });
  connect(shading_, &QComboBox::activated, this,
          [this](int i) { context_->set_shading(static_cast<Shading>(shading_->itemData(i).toInt())); });
  connect(context_, &AnalysisContext::shading_changed, this, [this] {
    shading_->setCurrentIndex(static_cast<int>(context_->shading()));
    legend_->set_scale(legend_->property("max").toDouble(), context_->shading());
  });
  connect(view_, &SourceView::scale_changed, this, [this](double max_percent) {
    legend_->setProperty("max", max_percent);
    legend_->set_scale(max_percent, context_->shading());
  });
  connect(view_, &SourceView::file_shown, this, [this](const QString& file) {
    refill_files();
    files_->setCurrentIndex(files_->findText(file));
  });
  refill_files();
}

void SourcePanel::resizeEvent(QResizeEvent* event) {
  place_legend();
  QWidget::resizeEvent(event);
}

void SourcePanel::place_legend() {
  // From the widgets themselves: the layout's cached hint lags behind a refilled file chooser.
  const int gap = std::max(6, choosers_->spacing());
  int row = legend_->minimumSizeHint().width();
  for (int i = 0; i < choosers_->count(); ++i) {
    const QLayoutItem* item = choosers_->itemAt(i);
    row += (item->widget() ? item->widget()->sizeHint().width() : item->sizeHint().width()) + gap;
  }
  header_->setDirection(width() < row ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
}

void SourcePanel::refill_files() {
  const auto a = context_->analysis();
  QStringList names;
  if (a)
    for (const auto& f : a->files()) names << QString::fromStdString(f);
  QStringList current;
  for (int i = 0; i < files_->count(); ++i) current << files_->itemText(i);
  if (current != names) {
    files_->clear();
    files_->addItems(names);
  }
  files_->setEnabled(names.size() > 1);
  place_legend();  // the file chooser's width follows its names
}

}  // namespace ncp2::gui
