#include "dsm/race_detector.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace ncp2::dsm {

namespace {

// Sets bits [from, from + count): whole words at a time (a typed access sets up to 8 bits, a span
// thousands).
void set_bits(std::vector<std::uint64_t>& bits, std::size_t from, std::size_t count) {
  std::size_t b = from;
  const std::size_t end = from + count;
  while (b < end) {
    const std::size_t shift = b % 64;
    const std::size_t n = std::min<std::size_t>(64 - shift, end - b);
    const std::uint64_t mask = n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1) << shift;
    bits[b / 64] |= mask;
    b += n;
  }
}

bool bit(const std::vector<std::uint64_t>& bits, std::size_t b) { return (bits[b / 64] >> (b % 64)) & 1U; }

// Adds bytes [first, last] to the site's range (widening it), or a range for a new site while
// there is room. The last site added is looked at first: loops touch a page from one place.
void add_site(std::vector<SiteRange>& sites, const AccessSite& site, std::uint32_t first,
              std::uint32_t last) {
  for (std::size_t i = sites.size(); i-- > 0;) {
    SiteRange& r = sites[i];
    if (r.site != site) continue;
    r.first = std::min(r.first, first);
    r.last = std::max(r.last, last);
    return;
  }
  if (sites.size() < RaceDetector::kSitesPerPage) sites.push_back(SiteRange{site, first, last});
}

// The site blamed for byte `b`: the narrowest range holding it (a site's range is a hull, so a
// narrower one is likelier to have touched the byte itself), else the first site.
const AccessSite& site_at(const std::vector<SiteRange>& sites, std::size_t b) {
  const SiteRange* best = nullptr;
  for (const SiteRange& r : sites)
    if (r.first <= b && b <= r.last && (!best || r.last - r.first < best->last - best->first)) best = &r;
  return best ? best->site : sites.front().site;
}

}  // namespace

RaceDetector::RaceDetector(int nodes, std::size_t page_size)
    : words_((page_size + 63) / 64),
      page_size_(page_size),
      arrivals_clock_(static_cast<std::size_t>(nodes > 0 ? nodes : 0), 0),
      released_clock_(arrivals_clock_.size(), 0) {
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

RaceDetector::PageAccess& RaceDetector::page_access(NodeId node, PageId page) {
  NodeState& n = state(node);
  if (n.last && n.last_page == raw(page)) return *n.last;
  auto [it, fresh] = n.current.pages.try_emplace(raw(page));
  PageAccess& a = it->second;
  if (fresh) {
    a.read.assign(words_, 0);
    a.write.assign(words_, 0);
  }
  n.last_page = raw(page);
  n.last = &a;  // std::map nodes do not move
  return a;
}

void RaceDetector::mark(NodeId node, PageId page, std::size_t offset, std::size_t bytes,
                        const AccessSite& site, bool write) {
  if (bytes == 0) return;
  if (offset + bytes > page_size_) throw std::out_of_range("RaceDetector: access beyond its page");
  PageAccess& a = page_access(node, page);
  const auto first = static_cast<std::uint32_t>(offset);
  const auto last = static_cast<std::uint32_t>(offset + bytes - 1);
  add_site(write ? a.write_sites : a.read_sites, site, first, last);
  set_bits(write ? a.write : a.read, offset, bytes);
  a.touched.add(first / 64, last / 64);
  if (write) a.written.add(first / 64, last / 64);
}

void RaceDetector::read(NodeId node, PageId page, std::size_t offset, std::size_t bytes,
                        const AccessSite& site) {
  mark(node, page, offset, bytes, site, false);
}

void RaceDetector::write(NodeId node, PageId page, std::size_t offset, std::size_t bytes,
                         const AccessSite& site) {
  mark(node, page, offset, bytes, site, true);
}

void RaceDetector::merge(NodeId node, PageId page, std::span<const std::uint64_t> read_bits,
                         std::span<const std::uint64_t> write_bits, std::span<const SiteRange> read_sites,
                         std::span<const SiteRange> write_sites) {
  if (read_bits.size() > words_ || write_bits.size() > words_)
    throw std::out_of_range("RaceDetector: bitmap larger than a page");
  const bool reads = std::any_of(read_bits.begin(), read_bits.end(), [](std::uint64_t w) { return w != 0; });
  const bool writes =
      std::any_of(write_bits.begin(), write_bits.end(), [](std::uint64_t w) { return w != 0; });
  if (!reads && !writes) return;
  PageAccess& a = page_access(node, page);
  for (std::size_t w = 0; w < read_bits.size(); ++w) {
    a.read[w] |= read_bits[w];
    if (read_bits[w] != 0) a.touched.add(w, w);
  }
  for (std::size_t w = 0; w < write_bits.size(); ++w) {
    a.write[w] |= write_bits[w];
    if (write_bits[w] != 0) {
      a.touched.add(w, w);
      a.written.add(w, w);
    }
  }
  // A recorder that kept no site for its bytes still made them: blame an unknown place.
  const auto add = [](std::vector<SiteRange>& into, std::span<const SiteRange> from, bool any) {
    for (const SiteRange& r : from) add_site(into, r.site, r.first, r.last);
    if (any && into.empty()) into.push_back(SiteRange{});
  };
  add(a.read_sites, read_sites, reads);
  add(a.write_sites, write_sites, writes);
}

void RaceDetector::close_segment(NodeId node) {
  NodeState& n = state(node);
  n.last = nullptr;
  if (!n.current.pages.empty()) {
    n.current.clock = n.clock;
    check(n.current);
    kept_.push_back(std::move(n.current));
    if (++closed_since_prune_ >= 4 * nodes_.size()) prune();
  }
  n.current = Segment{};
  n.current.node = node;
  n.current.number = n.clock[static_cast<std::size_t>(emu::index(node))];
}

// Starts the node's next segment after a synchronization.
void RaceDetector::next_segment(NodeId node) {
  NodeState& n = state(node);
  ++n.clock[static_cast<std::size_t>(emu::index(node))];
  n.current.number = n.clock[static_cast<std::size_t>(emu::index(node))];
}

void RaceDetector::release(NodeId node, LockId lock) {
  close_segment(node);
  lock_clock_[raw(lock)] = state(node).clock;
  next_segment(node);
}

void RaceDetector::acquired(NodeId node, LockId lock) {
  close_segment(node);
  if (const auto it = lock_clock_.find(raw(lock)); it != lock_clock_.end())
    lrc::merge(state(node).clock, it->second);
  next_segment(node);
}

// A node cannot arrive at episode k + 1 before it departed from k, and nobody departs from k
// before everyone arrived: one clock gathers the arrivals, another holds the last episode's.
void RaceDetector::barrier_arrive(NodeId node) {
  close_segment(node);
  lrc::merge(arrivals_clock_, state(node).clock);
  if (++arrived_ == static_cast<int>(nodes_.size())) {
    arrived_ = 0;
    released_clock_ = arrivals_clock_;
    std::fill(arrivals_clock_.begin(), arrivals_clock_.end(), 0);
    kept_.clear();  // everything so far happens before everything from now on
    closed_since_prune_ = 0;
  }
}

void RaceDetector::barrier_depart(NodeId node) {
  lrc::merge(state(node).clock, released_clock_);
  next_segment(node);
}

void RaceDetector::finish() {
  for (auto& n : nodes_) close_segment(n.current.node);
}

bool RaceDetector::ordered(const Segment& a, const Segment& b) {
  return b.clock[static_cast<std::size_t>(emu::index(a.node))] >= a.number;
}

void RaceDetector::check(const Segment& s) {
  for (const Segment& k : kept_) {
    if (k.node == s.node || ordered(k, s) || ordered(s, k)) continue;
    // Walk the smaller page map, look up in the other.
    const bool s_smaller = s.pages.size() <= k.pages.size();
    const Segment& few = s_smaller ? s : k;
    const Segment& many = s_smaller ? k : s;
    for (const auto& [page, access] : few.pages)
      if (many.pages.contains(page)) report(k, s, page);
  }
}

// Every racing byte of the page is blamed on its sites; each distinct pair of sites (and kinds)
// is one race, found at its first byte. A byte x writes races with y's reads and writes; a byte x
// only reads, with y's writes.
void RaceDetector::report(const Segment& sa, const Segment& sb, std::uint32_t page) {
  const Segment* a = &sa;
  const Segment* b = &sb;
  if (b->node < a->node) std::swap(a, b);
  const PageAccess& x = a->pages.at(page);
  const PageAccess& y = b->pages.at(page);
  // Races need a write of one side where the other touched: scan the hull of those two overlaps.
  const auto overlap = [](WordSpan p, WordSpan q) {
    return WordSpan{std::max(p.first, q.first), std::min(p.last, q.last)};
  };
  WordSpan scan;
  for (const WordSpan o : {overlap(x.written, y.touched), overlap(x.touched, y.written)})
    if (!o.empty()) scan.add(o.first, o.last);
  if (scan.empty()) return;
  std::vector<RaceKey> found;  // on this page, between these two segments
  for (std::size_t w = scan.first; w <= scan.last && w < words_; ++w) {
    const std::uint64_t by_write = x.write[w] & (y.read[w] | y.write[w]);
    const std::uint64_t by_read = x.read[w] & ~x.write[w] & y.write[w];
    for (std::uint64_t racing = by_write | by_read; racing != 0; racing &= racing - 1) {
      const auto bit_index = static_cast<std::size_t>(std::countr_zero(racing));
      const std::size_t offset = w * 64 + bit_index;
      const bool x_writes = ((by_write >> bit_index) & 1U) != 0;
      const bool y_writes = bit(y.write, offset);
      const AccessSite& site_x = site_at(x_writes ? x.write_sites : x.read_sites, offset);
      const AccessSite& site_y = site_at(y_writes ? y.write_sites : y.read_sites, offset);
      const RaceKey key{emu::index(a->node), emu::index(b->node), site_x.where, site_x.line,
                        site_y.where,        site_y.line,         x_writes,     y_writes};
      if (std::find(found.begin(), found.end(), key) != found.end()) continue;
      found.push_back(key);
      if (const auto it = index_.find(key); it != index_.end()) {
        ++races_[it->second].occurrences;
        continue;
      }
      if (races_.size() >= kMaxRaces) continue;
      index_.emplace(key, races_.size());
      races_.push_back({PageId{page},
                        offset,
                        {a->node, a->number, a->clock, x_writes, site_x},
                        {b->node, b->number, b->clock, y_writes, site_y},
                        1});
    }
  }
  if (!found.empty()) ++pairs_;
}

void RaceDetector::prune() {
  closed_since_prune_ = 0;
  // covered[q]: the smallest clock entry for q over the other nodes; segments of q up to it are
  // ordered before every other node's present and future segments.
  std::vector<std::uint32_t> covered(nodes_.size(), UINT32_MAX);
  for (std::size_t p = 0; p < nodes_.size(); ++p)
    for (std::size_t q = 0; q < nodes_.size(); ++q)
      if (p != q) covered[q] = std::min(covered[q], nodes_[p].clock[q]);
  std::erase_if(kept_, [&](const Segment& s) {
    return s.number <= covered[static_cast<std::size_t>(emu::index(s.node))];
  });
}

}  // namespace ncp2::dsm
