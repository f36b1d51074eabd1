#include "gui/text_find.hpp"

namespace ncp2::gui {

std::vector<TextMatch> find_matches(const QStringList& lines, const QString& needle) {
  std::vector<TextMatch> out;
  if (needle.isEmpty()) return out;
  for (int i = 0; i < lines.size(); ++i) {
    // Matches do not overlap: the next search starts after the previous match.
    for (auto at = lines[i].indexOf(needle, 0, Qt::CaseInsensitive); at >= 0;
         at = lines[i].indexOf(needle, at + needle.size(), Qt::CaseInsensitive))
      out.push_back(
          {.line = i + 1, .column = static_cast<int>(at), .length = static_cast<int>(needle.size())});
  }
  return out;
}

int step_match(int count, int current, bool forward, bool* wrapped) {
  *wrapped = false;
  if (count <= 0) return -1;
  if (current < 0 || current >= count) return forward ? 0 : count - 1;
  const int next = current + (forward ? 1 : -1);
  if (next >= 0 && next < count) return next;
  *wrapped = true;
  return forward ? 0 : count - 1;
}

int first_match_from(const std::vector<TextMatch>& matches, int line) {
  for (std::size_t i = 0; i < matches.size(); ++i)
    if (matches[i].line >= line) return static_cast<int>(i);
  return matches.empty() ? -1 : 0;
}

}  // namespace ncp2::gui
