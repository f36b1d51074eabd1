#pragma once
// Finding plain text in a file's lines (case ignored), and stepping through the matches with
// wrap-around: the find bar's logic, without widgets, so that it is tested on its own.
#include <vector>

#include <QString>
#include <QStringList>

namespace ncp2::gui {

struct TextMatch {
  int line = 0;    // 1-based
  int column = 0;  // 0-based, in characters
  int length = 0;
  friend bool operator==(const TextMatch&, const TextMatch&) = default;
};

// Every occurrence of `needle` in the lines (case-insensitive), in reading order; none for "".
std::vector<TextMatch> find_matches(const QStringList& lines, const QString& needle);
// The match after (forward) or before `current` among `count`, wrapping around; -1 when there
// are none. `current` < 0 starts at the first (forward) or last match. Sets `wrapped` when it
// went past an end.
int step_match(int count, int current, bool forward, bool* wrapped);
// The first match at or after `line` (wrapping to the first): where typing starts the search.
int first_match_from(const std::vector<TextMatch>& matches, int line);

}  // namespace ncp2::gui
