// A node's twins and diffs (lrc/node.hpp): a page's first write in an interval (twin), the diff of
// each interval that wrote it, and diff requests.
//
// When a diff is made on the host depends on the transport: the emulator makes it lazily, at the
// page's next write (in the one pass that sizes it and copies the page into the new twin), when
// someone asks for it, or before a write notice invalidates the page; a real run copies the page
// when the interval closes (ProtocolConfig::copy_at_close: its service thread answers requests
// while the program runs on, so it must never read a page the program may be writing). What the
// protocol decides from diffs does not: a diff counts toward the collection threshold at its
// page's next write or invalidation on the writer (the program's order), never when a request
// comes (a matter of timing); TreadMarks, which diffs lazily, makes it at the latest then.
#include <algorithm>

#include <fmt/format.h>

#include "lrc/node.hpp"

namespace ncp2::lrc {

// A closed interval's diff of `page`, from its twin, in one pass that sizes it and copies the page
// as the interval left it (Diff::size_and_copy): that copy is the diff's end, and the page's next
// twin. A small diff is encoded at once, from the two buffers still in cache (a deferred diff holds
// a page-sized buffer; the collection threshold bounds the diffs' modelled bytes, so deferring only
// diffs of a quarter page or more keeps the host memory within 4 x that bound); a larger one is
// encoded if someone asks for it. Returns the copy, with one hold for the caller.
std::uint32_t Node::defer_diff(PageId page) {
  PageState& ps = pages_[raw(page)];
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
  ps.diffs.push_back(std::move(own));
  return after;
}

// A closed interval's diff of `page` encoded at once from its twin, which goes (asked for before the
// page's next write, or before a write notice invalidates the page: no copy of the page is needed).
void Node::encode_from_twin(PageId page) {
  PageState& ps = pages_[raw(page)];
  OwnDiff own;
  own.interval = ps.twin_interval;
  own.diff = Diff::between(twins_.bytes(ps.twin), memory_.page(page), config_.word_size, spare_diff_buffer());
  own.size = DiffSize{own.diff.runs(), own.diff.words()};
  drop_twin(ps);
  ps.diffs.push_back(std::move(own));
}

// copy_at_close: the interval's close makes the diff; the copy stays as the page's next twin while
// the page is unchanged.
void Node::seal_diff(PageId page) {
  PageState& ps = pages_[raw(page)];
  if (!ps.has_twin()) return;
  drop_clean(ps);
  ps.clean = defer_diff(page);
}

// The page's newest own diff, made already, that still has something to be told.
Node::OwnDiff* Node::newest_diff(PageState& ps) { return ps.diffs.empty() ? nullptr : &ps.diffs.back(); }

// The diff's bytes count toward the collection threshold (once).
void Node::account(OwnDiff& own) {
  if (own.accounted) return;
  own.accounted = true;
  diff_bytes_ += own.size.modeled_bytes(config_.word_size);  // word runs, not the byte masks
}

// Its modelled cost is told when TreadMarks would make it (once): marked first, so that whatever
// runs while the cost is charged (a handler asking for the same diff) does not charge it again.
void Node::charge(PageId page, OwnDiff& own, CostSink& costs) {
  if (own.charged) return;
  own.charged = true;
  costs.diff_made(page, own.size);
}

// TreadMarks makes the diff now if it has not (the page's next write, or an invalidation): made on
// the host if it was not (at a write, in the pass that copies the page into its next twin), counted,
// charged.
void Node::diff_due(PageId page, CostSink& costs, bool next_write) {
  PageState& ps = pages_[raw(page)];
  const std::uint32_t current = open_interval();
  if (ps.has_twin() && ps.twin_interval != current) {
    if (next_write) {
      const std::uint32_t copy = defer_diff(page);
      drop_clean(ps);
      ps.clean = copy;
    } else {
      encode_from_twin(page);
    }
  }
  if (OwnDiff* own = newest_diff(ps)) {
    account(*own);
    charge(page, *own, costs);
  }
}

void Node::drop_clean(PageState& ps) {
  if (ps.clean != PageBuffers::kNone) twins_.release(ps.clean);
  ps.clean = PageBuffers::kNone;
}

// The diff of `page` for own interval `interval`, made if it was not, encoded if it was deferred.
// The reference stays valid until the page's next diff is encoded.
const Diff& Node::diff_for(PageId page, std::uint32_t interval, CostSink& costs) {
  PageState& ps = pages_[raw(page)];
  // Asked for before the page's next write: made from the twin now (not counted yet).
  if (ps.has_twin() && ps.twin_interval == interval) encode_from_twin(page);
  // The page's diffs are kept in interval order (each made when its interval closed): a page
  // written in thousands of intervals (a poll under a lock) is asked for thousands at once.
  const auto it = std::lower_bound(ps.diffs.begin(), ps.diffs.end(), interval,
                                   [](const OwnDiff& own, std::uint32_t i) { return own.interval < i; });
  if (it != ps.diffs.end() && it->interval == interval) {
    charge(page, *it, costs);
    return encode_deferred(*it);
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
  const std::uint32_t current = open_interval();
  diff_due(page, costs, true);
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
