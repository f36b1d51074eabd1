// A node's twins and diffs (lrc/node.hpp): a page's first write in an interval (twin), making a
// diff when someone needs it (lazily, or at the interval's close), and answering diff requests.
#include <algorithm>

#include <fmt/format.h>

#include "lrc/node.hpp"

namespace ncp2::lrc {

// The diff of `page` for own interval `interval`, made from the twin if not yet done, encoded if it
// was deferred. The reference stays valid until the page's next diff is made.
const Diff& Node::make_diff(PageId page, std::uint32_t interval, CostSink& costs) {
  PageState& ps = pages_[raw(page)];
  for (auto& own : ps.diffs)
    if (own.interval == interval) return encode_deferred(own);
  if (!ps.has_twin() || ps.twin_interval != interval)
    throw std::logic_error(
        fmt::format("node {} has no diff and no twin for page {} interval {}", index(self_), raw(page), interval));
  Diff d = Diff::between(twins_.bytes(ps.twin), memory_.page(page), config_.word_size, spare_diff_buffer());
  costs.diff_made(page, DiffSize{d.runs(), d.words()});
  drop_twin(ps);
  ++counters_.diffs_created;
  diff_bytes_ += d.modeled_bytes();  // the machine's word-run size, not the byte masks (diff.hpp)
  ps.diffs.push_back({interval, std::move(d)});
  return ps.diffs.back().diff;
}

// A page's first write in an interval while its twin still separates an older interval's writes:
// that interval's diff is made as make_diff would (same sizes, charges and moment), but only its
// size is computed, in the pass that copies the page into the new twin; the diff keeps the old
// twin and the new one (the page as the interval left it) and is encoded if someone asks for it.
// Returns the new twin's buffer, one holder for the caller.
std::uint32_t Node::defer_diff(PageId page, CostSink& costs) {
  PageState& ps = pages_[raw(page)];
  const int ws = config_.word_size;
  const std::uint32_t before = ps.twin;
  const std::uint32_t after = twins_.acquire(config_.page_size);
  const DiffSize size = Diff::size_and_copy(twins_.bytes(before), memory_.page(page), ws, twins_.bytes(after));
  OwnDiff own;
  own.interval = ps.twin_interval;
  if (size.modeled_bytes(ws) * 4 < config_.page_size) {
    // A small diff is encoded now, from the two twins still in cache: a deferred diff holds a
    // page-sized buffer, and the GC threshold bounds the diffs' modeled bytes, so deferring only
    // diffs of a quarter page or more keeps the host memory within 4 x that bound.
    own.diff = Diff::between(twins_.bytes(before), twins_.bytes(after), ws, spare_diff_buffer());
  } else {
    // The diff's own holds: whatever runs while the diff is charged may take the twin (and make
    // this interval's diff itself, as it would have before).
    own.before = before;
    own.after = after;
    twins_.retain(before);
    twins_.retain(after);
  }
  costs.diff_made(page, size);
  drop_twin(ps);
  ++counters_.diffs_created;
  diff_bytes_ += size.modeled_bytes(ws);
  ps.diffs.push_back(std::move(own));
  return after;
}

const Diff& Node::encode_deferred(OwnDiff& own) {
  if (!own.deferred()) return own.diff;
  own.diff =
      Diff::between(twins_.bytes(own.before), twins_.bytes(own.after), config_.word_size, spare_diff_buffer());
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

const Diff& Node::diff_for(PageId page, std::uint32_t interval, CostSink& costs) {
  return make_diff(page, interval, costs);
}

void Node::diffs_served(PageId page, std::size_t modeled_bytes, CostSink& costs) {
  costs.diff_wanted(page);  // the one diff TreadMarks makes, once every interval's is in
  ++counters_.diff_replies;
  counters_.diff_bytes += modeled_bytes;
}

void Node::begin_write(PageId page, CostSink& costs) {
  PageState& ps = pages_[raw(page)];
  const std::uint32_t current = vt_[static_cast<std::size_t>(index(self_))] + 1;
  std::uint32_t copy = PageBuffers::kNone;  // a buffer already holding the page, if any
  if (ps.has_twin() && ps.twin_interval != current) copy = defer_diff(page, costs);
  if (ps.has_twin()) {
    if (copy != PageBuffers::kNone) twins_.release(copy);  // not reached: defer_diff drops the twin
  } else {
    if (copy == PageBuffers::kNone) {
      const auto bytes = memory_.page(page);
      copy = twins_.acquire(bytes.size());
      std::ranges::copy(bytes, twins_.bytes(copy).begin());
    }
    ps.twin = copy;
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
