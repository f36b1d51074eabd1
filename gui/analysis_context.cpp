#include "gui/analysis_context.hpp"

#include <algorithm>

namespace ncp2::gui {

AnalysisContext::AnalysisContext(QObject* parent) : QObject(parent) {}

void AnalysisContext::set_run(std::shared_ptr<const RunSummary> summary) {
  summary_ = std::move(summary);
  node_filter_ = -1;
  analysis_ = summary_ ? std::make_shared<const Analysis>(summary_) : nullptr;
  scope_ = -1;
  line_ = 0;
  race_ = 0;
  file_.clear();
  if (analysis_) {
    const auto files = analysis_->files();
    if (!files.empty()) file_ = QString::fromStdString(files.front());
  }
  emit analysis_changed();
  // Start where the time is: the hottest scope other than a root, else the hottest root.
  if (analysis_) {
    std::int64_t start = -1;
    for (auto id : analysis_->scopes_by_time()) {
      if (analysis_->scope(id)->depth > 0) {
        start = id;
        break;
      }
    }
    if (start < 0 && !analysis_->roots().empty()) start = analysis_->roots().front();
    if (start >= 0) select_scope(start);
  }
}

void AnalysisContext::clear() { set_run(nullptr); }

void AnalysisContext::select_scope(qint64 id) {
  const ScopeStats* st = analysis_ ? analysis_->scope(id) : nullptr;
  if (!st) return;
  const bool scope_moved = scope_ != id;
  scope_ = id;
  if (!st->scope.file.empty() && st->scope.begin_line > 0) {
    file_ = QString::fromStdString(st->scope.file);
    line_ = st->scope.begin_line;
    emit line_changed(file_, line_);
  }
  if (scope_moved) emit scope_changed(id);
}

void AnalysisContext::select_line(const QString& file, int line) {
  if (!analysis_) return;
  file_ = file;
  line_ = line;
  emit line_changed(file_, line_);
  const auto id = analysis_->innermost_scope_at(file.toStdString(), line);
  if (id >= 0 && id != scope_) {
    scope_ = id;
    emit scope_changed(id);
  }
}

const carnival::RaceRow* AnalysisContext::selected_race() const {
  if (!summary_ || race_ == 0) return nullptr;
  for (const auto& r : summary_->races)
    if (r.id == race_) return &r;
  return nullptr;
}

bool AnalysisContext::can_show(const carnival::RaceAccess& access) const {
  if (!analysis_ || access.line <= 0 || access.file.empty()) return false;
  const auto files = analysis_->files();
  return std::find(files.begin(), files.end(), access.file) != files.end();
}

bool AnalysisContext::select_race(quint32 id, int side) {
  if (!summary_) return false;
  const std::uint32_t previous = race_;
  race_ = id;
  const auto* r = selected_race();
  if (!r) race_ = 0;
  if (race_ != previous) emit race_changed(race_);
  if (!r) return false;
  const auto& access = side == 1 ? r->second : r->first;
  // An access outside the stored sources has no line to show: the selection stays where it is.
  if (!can_show(access)) return false;
  select_line(QString::fromStdString(access.file), access.line);
  return true;
}

void AnalysisContext::set_node_filter(int node) {
  if (!summary_ || node == node_filter_) return;
  node_filter_ = node;
  analysis_ = std::make_shared<const Analysis>(summary_, node);
  emit analysis_changed();
}

void AnalysisContext::set_shading(Shading s) {
  if (s == shading_) return;
  shading_ = s;
  emit shading_changed();
}

}  // namespace ncp2::gui
