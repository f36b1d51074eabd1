// A node's twins and diffs (lrc/node.hpp): a page's first write in an interval (twin), its diff
// sized when the interval closes and encoded when someone asks for it, and diff requests.
#include <algorithm>

#include <fmt/format.h>

#include "lrc/node.hpp"

namespace ncp2::lrc {

// The close of the interval whose writes the page's twin separates: the diff is sized in the pass
// that copies the page as the interval left it (Diff::size_and_copy): that copy is the diff's end,
// and the page's next twin while the page stays as it is. A small diff is encoded at once, from
// the two buffers still in cache (a deferred diff holds a page-sized buffer; the collection
// threshold bounds the diffs' modelled bytes, so deferring only diffs of a quarter page or more
// keeps the host memory within 4 x that bound); a larger one is encoded if someone asks for it.
void Node::seal_diff(PageId page) {
  PageState& ps = pages_[raw(page)];
  if (!ps.has_twin()) return;
  const int ws = config_.word_size;
  const std::uint32_t before = ps.twin;
  const std::uint32_t after = twins_.acquire(config_.page_size);
  OwnDiff own;
  own.interval = ps.twin_interval;
  own.size = Diff::size_and_copy(twins_.bytes(before), memory_.page(page), ws, twins_.bytes(after));
  if (own.size.modeled_bytes(ws) * 4 < config_.page_size) {
    own.diff = Diff::between(twins_.bytes(before), twins_.bytes(after), ws, spare_diff_buffer());
    twins_.release(before);
  } else {
    own.before = before;  // the twin's hold, now the diff's
    own.after = after;
    twins_.retain(after);
  }
  ps.twin = PageBuffers::kNone;
  ps.twin_interval = 0;
  drop_clean(ps);
  ps.clean = after;
  ++counters_.diffs_created;
  diff_bytes_ += own.size.modeled_bytes(ws);  // the machine's word-run size, not the byte masks
  ps.diffs.push_back(std::move(own));
}

// The page's newest own diff, if its modelled cost has not been told yet.
Node::OwnDiff* Node::uncharged_diff(PageState& ps) {
  return !ps.diffs.empty() && !ps.diffs.back().charged ? &ps.diffs.back() : nullptr;
}

// TreadMarks makes a diff lazily: at the page's next write, when someone asks for it, or before
// a write notice invalidates the page; its modelled cost is told then (once).
void Node::charge_diff(PageId page, OwnDiff& own, CostSink& costs) {
  own.charged = true;  // first: whatever runs while the cost is charged must not charge it again
  costs.diff_made(page, own.size);
}

void Node::drop_clean(PageState& ps) {
  if (ps.clean != PageBuffers::kNone) twins_.release(ps.clean);
  ps.clean = PageBuffers::kNone;
}

// The diff of `page` for own interval `interval`, encoded if it was deferred. The reference stays
// valid until the page's next diff is encoded.
const Diff& Node::diff_for(PageId page, std::uint32_t interval, CostSink& costs) {
  PageState& ps = pages_[raw(page)];
  for (auto& own : ps.diffs) {
    if (own.interval != interval) continue;
    if (!own.charged) charge_diff(page, own, costs);
    return encode_deferred(own);
  }
  throw std::logic_error(
      fmt::format("node {} has no diff of page {} for its interval {}", index(self_), raw(page), interval));
}

const Diff& Node::encode_deferred(OwnDiff& own) {
  if (!own.deferred()) return own.diff;
  own.diff = Diff::between(twins_.bytes(own.before), twins_.bytes(own.after), config_.word_size,
                           spare_diff_buffer());
  release_deferred(own);
  return own.diff;
}

void Node::release_deferred(OwnDiff& own) {
  if (!own.deferred()) return;
  twins_.release(own.before);
  twins_.release(own.after);
  own.before = PageBuffers::kNone;
  own.after = PageBuffers::kNone;
}

void Node::drop_twin(PageState& ps) {
  if (ps.has_twin()) twins_.release(ps.twin);
  ps.twin = PageBuffers::kNone;
  ps.twin_interval = 0;
}

std::vector<std::byte> Node::spare_diff_buffer() {
  std::vector<std::byte> storage;
  if (!spare_diff_buffers_.empty()) {
    storage = std::move(spare_diff_buffers_.back());
    spare_diff_buffers_.pop_back();
  }
  return storage;
}

void Node::diffs_served(PageId page, std::size_t modeled_bytes, CostSink& costs) {
  costs.diff_wanted(page);  // the one diff TreadMarks makes, once every interval's is in
  ++counters_.diff_replies;
  counters_.diff_bytes += modeled_bytes;
}

void Node::begin_write(PageId page, CostSink& costs) {
  PageState& ps = pages_[raw(page)];
  const std::uint32_t current = vt_[static_cast<std::size_t>(index(self_))] + 1;
  if (OwnDiff* own = uncharged_diff(ps)) charge_diff(page, *own, costs);
  if (!ps.has_twin()) {
    if (ps.clean != PageBuffers::kNone) {  // the page as the last interval left it: the twin already
      ps.twin = ps.clean;
      ps.clean = PageBuffers::kNone;
    } else {
      const auto bytes = memory_.page(page);
      ps.twin = twins_.acquire(bytes.size());
      std::ranges::copy(bytes, twins_.bytes(ps.twin).begin());
    }
    ps.twin_interval = current;
    ++counters_.twins;
    costs.twin_made(page);
  }
  dirty_.push_back(page);
  set_access(page, Access::Write);
}

void Node::discard_history(CostSink& costs) {
  // Twins and diff encodings go back to the node's pools (bounded): the next intervals reuse them
  // instead of allocating afresh (malloc was a tenth of an 8-node SOR run's host time). Deferred
  // diffs were never asked for: they are dropped unencoded.
  constexpr std::size_t kMaxSpareBuffers = 1024;
  for (auto& ps : pages_) {
    ps.notices.clear();
    drop_twin(ps);
    drop_clean(ps);
    for (auto& own : ps.diffs) {
      if (own.deferred())
        release_deferred(own);
      else if (spare_diff_buffers_.size() < kMaxSpareBuffers)
        spare_diff_buffers_.push_back(std::move(own.diff).take_storage());
    }
    ps.diffs.clear();
  }
  twins_.trim(kMaxSpareBuffers);
  diff_bytes_ = 0;
  notice_count_ = 0;
  costs.history_discarded();
  history_.discard(vt_);
}

}  // namespace ncp2::lrc
