// A node's pages, intervals and write notices, access faults and page fetches (lrc/node.hpp).
// Twins and diffs: node_diffs.cpp; locks: node_locks.cpp; barriers and collections: node_gc.cpp.
#include "lrc/node.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace ncp2::lrc {

Node::Node(NodeId self, const ProtocolConfig& config, History& history, PageDirectory& pages,
           PageMemory& memory)
    : self_(self),
      config_(config),
      history_(history),
      directory_(pages),
      memory_(memory),
      vt_(static_cast<std::size_t>(config.nodes), 0),
      vt_at_release_(static_cast<std::size_t>(config.nodes), 0) {}

void Node::add_region(std::uint32_t r) {
  const Region& region = directory_.regions().at(r);
  if (r != access_.size()) throw std::logic_error("regions must be added in the directory's order");
  // Alone, a node has nothing to keep coherent: its pages are writable from the start, so a
  // one-node run costs what the sequential program does (the papers' speedup baseline).
  const Access initial = config_.nodes == 1 ? Access::Write : Access::Read;
  const bool everywhere = config_.first_touch == FirstTouch::ZeroEverywhere;
  const bool held = everywhere || region.home == self_;
  access_.emplace_back(region.pages, static_cast<std::uint8_t>(held ? initial : Access::None));
  pages_.resize(std::size_t{region.first_page} + region.pages);
  for (std::uint32_t p = 0; p < region.pages; ++p) pages_[region.first_page + p].held = held;
}

void Node::take_access_changes(std::vector<PageId>& out) {
  out.clear();
  out.swap(access_changes_);
}

// The current interval's record (a write notice per page written) joins the history.
void Node::record_interval(std::span<const PageId> written, CostSink& costs) {
  costs.write_notices(written.size());
  costs.interval_closed(written.size());
  const auto me = static_cast<std::size_t>(index(self_));
  ++vt_[me];
  IntervalRecord rec;
  rec.creator = self_;
  rec.seq = vt_[me];
  rec.vt = vt_;
  rec.pages.assign(written.begin(), written.end());
  history_.add(std::move(rec));
  ++counters_.intervals;
}

bool Node::close_interval(CostSink& costs) {
  drop_unchanged_carried();
  if (dirty_.empty()) return false;
  record_interval(dirty_, costs);
  for (PageId page : dirty_) {
    if (access(page) == Access::Write) set_access(page, Access::Read);
    ++counters_.diffs_created;  // one diff per page written, whenever the host makes it
    if (config_.copy_at_close) seal_diff(page);
  }
  dirty_.clear();
  return true;
}

bool Node::close_interval_running(CostSink& costs) {
  // Every page stays written into the next interval; those carried here and not changed since
  // their snapshot have nothing to tell.
  std::vector<PageId> written;
  for (PageId page : dirty_)
    if (!unchanged_since_snapshot(page)) written.push_back(page);
  if (written.empty()) return false;
  record_interval(written, costs);
  for (PageId page : written) {
    PageState& ps = pages_[raw(page)];
    ++counters_.diffs_created;
    // The snapshot: the closed interval's diff ends there, the next interval's twin starts there.
    drop_clean(ps);
    const std::uint32_t snapshot = defer_diff(page);
    OwnDiff& own = ps.diffs.back();
    account(own);  // made now, not at the page's next write (which will not fault)
    charge(page, own, costs);
    ps.twin = snapshot;
    ++counters_.twins;
    costs.twin_made(page);
  }
  const std::uint32_t next = open_interval();
  for (PageId page : dirty_) {
    pages_[raw(page)].twin_interval = next;
    pages_[raw(page)].carried = true;
  }
  return true;
}

bool Node::unchanged_since_snapshot(PageId page) {
  const PageState& ps = pages_[raw(page)];
  if (!ps.carried) return false;
  const std::span<const std::byte> twin = twins_.bytes(ps.twin);
  const std::span<const std::byte> now = memory_.page(page);
  return std::equal(twin.begin(), twin.end(), now.begin(), now.end());
}

// Pages carried into this interval by close_interval_running that the program left as the snapshot
// found them: not written in this interval after all. Their snapshot is the page as its last diff
// left it (the next write's twin), and they lose write access as a closed interval's pages do.
void Node::drop_unchanged_carried() {
  std::erase_if(dirty_, [this](PageId page) {
    PageState& ps = pages_[raw(page)];
    const bool unchanged = unchanged_since_snapshot(page);
    ps.carried = false;
    if (!unchanged) return false;
    drop_clean(ps);
    ps.clean = ps.twin;
    ps.twin = PageBuffers::kNone;
    ps.twin_interval = 0;
    if (access(page) == Access::Write) set_access(page, Access::Read);
    return true;
  });
}

void Node::incorporate(const VectorTime& learned, CostSink& costs) {
  const auto me = static_cast<std::size_t>(index(self_));
  std::size_t notices = 0;
  for (std::size_t q = 0; q < learned.size(); ++q) {
    if (q == me) continue;
    const NodeId writer = node_id(static_cast<int>(q));
    for (std::uint32_t i = vt_[q] + 1; i <= learned[q]; ++i) {
      for (PageId page : history_.record(writer, i).pages) {
        PageState& ps = pages_[raw(page)];
        ps.notices.push_back({writer, i});
        ++notices;
        // TreadMarks makes the diff of its own writes before the page is invalidated.
        diff_due(page, costs, false);
        costs.diff_wanted(page);
        set_access(page, Access::None);
      }
    }
  }
  for (std::size_t q = 0; q < learned.size(); ++q) vt_[q] = std::max(vt_[q], learned[q]);
  notice_count_ += notices;
  counters_.write_notices += notices;
  costs.write_notices(notices);
}

Operation Node::begin_fault(PageId page) {
  ++counters_.page_faults;
  return pages_[raw(page)].held ? Operation::DiffFetch : Operation::PageFault;
}

NodeId Node::request_page(PageId page) {
  ++counters_.page_requests;
  return directory_.home(page);
}

void Node::install_page(PageId page, std::span<const std::byte> bytes) {
  const std::span<std::byte> mine = memory_.page(page);
  if (bytes.size() != mine.size())
    throw std::runtime_error(fmt::format("node {}: a copy of page {} of {} bytes, not {}", index(self_),
                                         raw(page), bytes.size(), mine.size()));
  std::memcpy(mine.data(), bytes.data(), mine.size());
  drop_clean(pages_[raw(page)]);
  pages_[raw(page)].held = true;
}

std::span<const std::byte> Node::serve_page(PageId page) {
  ++counters_.pages_served;
  // The page as this node's last closed interval left it. No write notice covers the open
  // interval's writes: the requester learns them from its diff, which holds only the bytes that
  // differ from the twin, so a value the page passes through (255 in a word that ends as 256,
  // whose twin holds 0) would stay in the copy. While the open interval writes the page, its twin
  // is that copy: the page at its first write, or the snapshot of a close while running (carried),
  // which ends the closed interval. Otherwise the page holds no write of the open interval that the
  // core was told of; a program's write fault not yet told (taken at once, tmk/) is the transport's
  // to hide: the page is shown as the fault's snapshot until then.
  const PageState& ps = pages_[raw(page)];
  if (ps.has_twin() && ps.twin_interval == open_interval()) return twins_.bytes(ps.twin);
  return memory_.page(page);
}

std::span<const Notice> Node::plan_diff_fetch(PageId page) {
  auto& notices = pages_[raw(page)].notices;
  std::sort(notices.begin(), notices.end());
  notices.erase(std::unique(notices.begin(), notices.end()), notices.end());
  for (std::size_t i = 0; i < notices.size(); ++i)
    if (i == 0 || notices[i].writer != notices[i - 1].writer) ++counters_.diff_requests;
  received_.clear();
  receive_buffer_.clear();
  return notices;
}

std::size_t Node::receive_diff(NodeId writer, std::uint32_t interval, std::span<const std::byte> encoded,
                               CostSink& costs) {
  const std::size_t offset = receive_buffer_.size();
  receive_buffer_.insert(receive_buffer_.end(), encoded.begin(), encoded.end());
  received_.push_back({writer, interval, offset, encoded.size()});
  // The words of the runs: the machine applies words (a byte mask adds no modelled cost).
  const std::size_t words = Diff::count_words(encoded, config_.word_size);
  costs.diffs_applied(words);
  return words;
}

void Node::apply_received(PageId page) {
  // Concurrent diffs touch disjoint bytes (they may share words: a diff writes only its changed
  // bytes); ordered ones are applied in happens-before order.
  std::sort(received_.begin(), received_.end(), [this](const ReceivedDiff& a, const ReceivedDiff& b) {
    const std::uint64_t ka = history_.record(a.writer, a.interval).order_key;
    const std::uint64_t kb = history_.record(b.writer, b.interval).order_key;
    if (ka != kb) return ka < kb;
    if (a.writer != b.writer) return a.writer < b.writer;
    return a.interval < b.interval;
  });
  const std::span<std::byte> bytes = memory_.page(page);
  for (const ReceivedDiff& r : received_)
    Diff::apply_encoded(std::span<const std::byte>(receive_buffer_.data() + r.offset, r.bytes), bytes,
                        config_.word_size);
  counters_.diffs_applied += received_.size();
  PageState& ps = pages_[raw(page)];
  drop_clean(ps);
  notice_count_ -= std::min(notice_count_, ps.notices.size());
  ps.notices.clear();
  received_.clear();
}

void Node::grant_read(PageId page) {
  if (access(page) == Access::None) set_access(page, Access::Read);
}

bool Node::write_is_local(PageId page) const {
  const PageState& ps = pages_[raw(page)];
  return access(page) == Access::Read && ps.held && ps.notices.empty();
}

std::size_t Node::arrive_at_barrier(CostSink& costs) {
  close_interval(costs);
  return usage();
}

void Node::released(const VectorTime& merged, CostSink& costs) {
  incorporate(merged, costs);
  vt_at_release_ = vt_;
}

}  // namespace ncp2::lrc
