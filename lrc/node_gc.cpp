// A node's part of a garbage collection (lrc/node.hpp, TreadMarks': at a barrier, when some node's
// diffs and write notices outgrew the threshold). Before diffs, twins and write notices can be
// discarded, every copy of a page must be current or dropped. With GcCopies::LastWriter, each page
// written since the last collection gets a new home, its last writer, which brings its copy up to
// date (fetching the diffs of concurrent writers); every other node keeps a copy that is already
// current and drops a stale one, to ask the new home for it if it needs it again. (A fixed home
// made current for every page would receive every diff of the program at each collection.) With
// GcCopies::ValidateAll every node brings every stale copy it holds up to date. Then everyone meets
// at a second barrier and discards.
#include "lrc/node.hpp"

namespace ncp2::lrc {

void Node::begin_gc() {
  ++counters_.gc_runs;
  // The homes depend only on the intervals up to the release's vector time, which every node has
  // seen now: the first node of a process to collect computes them for all that share the directory.
  directory_.assign_homes(history_, vt_, counters_.gc_runs);
}

GcStep Node::gc_step(PageId page) {
  PageState& ps = pages_[raw(page)];
  if (!ps.held || ps.notices.empty()) return GcStep::Keep;
  if (config_.gc_copies == GcCopies::ValidateAll || directory_.home(page) == self_) return GcStep::Validate;
  ps.held = false;
  drop_clean(ps);
  set_access(page, Access::None);
  return GcStep::Drop;
}

void Node::gc_validated(PageId page) {
  if (access(page) == Access::None) access_byte(page) = static_cast<std::uint8_t>(Access::Read);
  if (track_access_) access_changes_.push_back(page);
}

}  // namespace ncp2::lrc
