#include "dsm/race_detector.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <stdexcept>

namespace ncp2::dsm {

namespace {

void set_bits(std::vector<std::uint64_t>& bits, std::size_t from, std::size_t count) {
  for (std::size_t b = from; b < from + count; ++b) bits[b / 64] |= std::uint64_t{1} << (b % 64);
}

void merge(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& other) {
  for (std::size_t i = 0; i < into.size() && i < other.size(); ++i) into[i] = std::max(into[i], other[i]);
}

// The first byte set in both a and (b1 | b2), or none.
std::optional<std::size_t> first_overlap(const std::vector<std::uint64_t>& a,
                                         const std::vector<std::uint64_t>& b1,
                                         const std::vector<std::uint64_t>& b2) {
  for (std::size_t w = 0; w < a.size(); ++w) {
    const std::uint64_t both = a[w] & (b1[w] | b2[w]);
    if (both) return w * 64 + static_cast<std::size_t>(std::countr_zero(both));
  }
  return std::nullopt;
}

}  // namespace

RaceDetector::RaceDetector(int nodes, std::size_t page_size)
    : words_((page_size + 63) / 64),
      page_size_(page_size),
      barrier_clock_(static_cast<std::size_t>(nodes), 0) {
  if (nodes <= 0 || page_size == 0) throw std::invalid_argument("RaceDetector: no nodes or no page size");
  nodes_.resize(static_cast<std::size_t>(nodes));
  for (std::size_t p = 0; p < nodes_.size(); ++p) {
    NodeState& n = nodes_[p];
    n.clock.assign(nodes_.size(), 0);
    n.clock[p] = 1;  // every node starts in its segment 1
    n.current.node = emu::node_id(static_cast<int>(p));
    n.current.number = 1;
  }
}

void RaceDetector::mark(NodeId node, PageId page, std::size_t offset, std::size_t bytes, std::uint64_t site,
                        bool write) {
  if (bytes == 0) return;
  if (offset + bytes > page_size_) throw std::out_of_range("RaceDetector: access beyond its page");
  NodeState& n = nodes_.at(static_cast<std::size_t>(emu::index(node)));
  auto [it, fresh] = n.current.pages.try_emplace(raw(page));
  PageAccess& a = it->second;
  if (fresh) {
    a.read.assign(words_, 0);
    a.write.assign(words_, 0);
  }
  if (write) {
    if (!a.write_site) a.write_site = site;
    set_bits(a.write, offset, bytes);
  } else {
    if (!a.read_site) a.read_site = site;
    set_bits(a.read, offset, bytes);
  }
}

void RaceDetector::read(NodeId node, PageId page, std::size_t offset, std::size_t bytes, std::uint64_t site) {
  mark(node, page, offset, bytes, site, false);
}

void RaceDetector::write(NodeId node, PageId page, std::size_t offset, std::size_t bytes,
                         std::uint64_t site) {
  mark(node, page, offset, bytes, site, true);
}

void RaceDetector::close_segment(NodeId node) {
  NodeState& n = nodes_.at(static_cast<std::size_t>(emu::index(node)));
  if (!n.current.pages.empty()) {
    n.current.clock = n.clock;
    done_.push_back(std::move(n.current));
  }
  n.current = Segment{};
  n.current.node = node;
  n.current.number = n.clock[static_cast<std::size_t>(emu::index(node))];
}

// Starts the node's next segment after a synchronization.
void RaceDetector::next_segment(NodeId node) {
  NodeState& n = nodes_.at(static_cast<std::size_t>(emu::index(node)));
  ++n.clock[static_cast<std::size_t>(emu::index(node))];
  n.current.number = n.clock[static_cast<std::size_t>(emu::index(node))];
}

void RaceDetector::release(NodeId node, LockId lock) {
  close_segment(node);
  lock_clock_[raw(lock)] = nodes_.at(static_cast<std::size_t>(emu::index(node))).clock;
  next_segment(node);
}

void RaceDetector::acquired(NodeId node, LockId lock) {
  close_segment(node);
  if (const auto it = lock_clock_.find(raw(lock)); it != lock_clock_.end())
    merge(nodes_.at(static_cast<std::size_t>(emu::index(node))).clock, it->second);
  next_segment(node);
}

void RaceDetector::barrier_arrive(NodeId node) {
  close_segment(node);
  merge(barrier_clock_, nodes_.at(static_cast<std::size_t>(emu::index(node))).clock);
}

void RaceDetector::barrier_depart(NodeId node) {
  merge(nodes_.at(static_cast<std::size_t>(emu::index(node))).clock, barrier_clock_);
  next_segment(node);
  if (++departed_ == static_cast<int>(nodes_.size())) {  // the episode is over
    departed_ = 0;
    std::fill(barrier_clock_.begin(), barrier_clock_.end(), 0);
  }
}

bool RaceDetector::ordered(const Segment& a, const Segment& b) {
  return b.clock[static_cast<std::size_t>(emu::index(a.node))] >= a.number;
}

std::vector<RaceDetector::Race> RaceDetector::races() {
  for (const auto& n : nodes_) close_segment(n.current.node);
  std::map<std::uint32_t, std::vector<const Segment*>> by_page;
  for (const Segment& s : done_)
    for (const auto& [page, access] : s.pages) by_page[page].push_back(&s);
  std::vector<Race> out;
  for (const auto& [page, segments] : by_page) {
    for (std::size_t i = 0; i < segments.size(); ++i) {
      for (std::size_t j = i + 1; j < segments.size(); ++j) {
        const Segment* a = segments[i];
        const Segment* b = segments[j];
        if (a->node == b->node || ordered(*a, *b) || ordered(*b, *a)) continue;
        if (b->node < a->node) std::swap(a, b);
        const PageAccess& x = a->pages.at(page);
        const PageAccess& y = b->pages.at(page);
        // x writes what y reads or writes, or x reads what y writes.
        const auto by_x_write = first_overlap(x.write, y.read, y.write);
        const auto by_x_read = first_overlap(x.read, y.write, y.write);
        if (!by_x_write && !by_x_read) continue;
        const bool x_writes = by_x_write && (!by_x_read || *by_x_write <= *by_x_read);
        const std::size_t offset = x_writes ? *by_x_write : *by_x_read;
        const bool y_writes = (y.write[offset / 64] >> (offset % 64)) & 1U;
        out.push_back({PageId{page},
                       offset,
                       {a->node, a->number, a->clock, x_writes, x_writes ? x.write_site : x.read_site},
                       {b->node, b->number, b->clock, y_writes, y_writes ? y.write_site : y.read_site}});
      }
    }
  }
  return out;
}

}  // namespace ncp2::dsm
