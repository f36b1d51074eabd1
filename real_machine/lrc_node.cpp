#include "real_machine/lrc_node.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "lrc/diff.hpp"

namespace ncp2::real {

namespace {
// Words of 8 bytes: the diff's byte masks keep it byte-exact whatever the word size; larger words
// make fewer runs on a 64-bit host.
constexpr int kDiffWord = 8;

std::uint64_t vt_sum(const VectorTime& vt) { return std::accumulate(vt.begin(), vt.end(), std::uint64_t{0}); }
}  // namespace

void write_intervals(WireWriter& w, std::span<const IntervalRecord* const> intervals) {
  w.u64(intervals.size());
  for (const IntervalRecord* r : intervals) w.u32(r->creator).u32(r->seq).u32s(r->vt).u32s(r->pages);
}

std::vector<IntervalRecord> read_intervals(WireReader& r) {
  const std::uint64_t n = r.u64();
  std::vector<IntervalRecord> out;
  for (std::uint64_t i = 0; i < n; ++i) {
    IntervalRecord rec;
    rec.creator = r.u32();
    rec.seq = r.u32();
    rec.vt = r.u32s();
    rec.pages = r.u32s();
    out.push_back(std::move(rec));
  }
  return out;
}

LrcNode::LrcNode(std::uint32_t self, std::uint32_t nodes, std::span<std::byte> heap, std::size_t page_bytes)
    : self_(self),
      heap_(heap),
      page_bytes_(page_bytes),
      vt_(nodes, 0),
      intervals_(nodes),
      dropped_(nodes, 0),
      access_(heap.size() / page_bytes, PageAccess::Read) {
  if (self >= nodes) throw std::invalid_argument("node id out of range");
}

std::span<std::byte> LrcNode::page_bytes(std::uint32_t page) const {
  return heap_.subspan(std::size_t{page} * page_bytes_, page_bytes_);
}

void LrcNode::set_access(std::uint32_t page, PageAccess a) {
  if (access_.at(page) == a) return;
  access_[page] = a;
  changed_.push_back(page);
}

void LrcNode::write_fault(std::uint32_t page, std::span<const std::byte> as_it_was) {
  if (!valid(page)) throw std::logic_error("write_fault on an invalid page");
  if (twins_.find(page) == twins_.end()) {
    const std::span<const std::byte> bytes = as_it_was.empty() ? page_bytes(page) : as_it_was;
    twins_.emplace(page, std::vector<std::byte>(bytes.begin(), bytes.end()));
  }
  set_access(page, PageAccess::ReadWrite);
}

void LrcNode::grant_read(std::uint32_t page) {
  if (!valid(page)) throw std::logic_error("grant_read on an invalid page");
  if (access_.at(page) == PageAccess::None) set_access(page, PageAccess::Read);
}

std::vector<DiffNeed> LrcNode::missing_diffs(std::uint32_t page) const {
  std::vector<DiffNeed> needs;
  const auto it = pending_.find(page);
  if (it == pending_.end()) return needs;
  for (const auto& [creator, seq] : it->second) {
    auto need =
        std::find_if(needs.begin(), needs.end(), [c = creator](const DiffNeed& d) { return d.creator == c; });
    if (need == needs.end()) need = needs.insert(needs.end(), DiffNeed{creator, {}});
    need->seqs.push_back(seq);
  }
  return needs;
}

const IntervalRecord& LrcNode::record(std::uint32_t creator, std::uint32_t seq) const {
  const auto& of = intervals_.at(creator);
  const std::uint32_t base = dropped_.at(creator);
  if (seq <= base || seq > base + of.size()) throw std::logic_error("an interval this node has not seen");
  return of[seq - base - 1];
}

void LrcNode::apply_diffs(std::uint32_t page, std::vector<ReceivedDiff> diffs) {
  std::sort(diffs.begin(), diffs.end(), [this](const ReceivedDiff& a, const ReceivedDiff& b) {
    const std::uint64_t sa = vt_sum(record(a.creator, a.seq).vt);
    const std::uint64_t sb = vt_sum(record(b.creator, b.seq).vt);
    return sa != sb ? sa < sb : a.creator < b.creator;
  });
  const auto bytes = page_bytes(page);
  for (const ReceivedDiff& d : diffs) lrc::Diff::apply_encoded(d.encoded, bytes, kDiffWord);
  pending_.erase(page);
  // A page written in the open interval cannot be invalid (the interval closed before the write
  // notices came in), so there is no twin to update.
  set_access(page, PageAccess::Read);
}

bool LrcNode::close_interval() {
  if (twins_.empty()) return false;
  IntervalRecord rec;
  rec.creator = self_;
  rec.seq = vt_[self_] + 1;
  for (auto& [page, twin] : twins_) {
    lrc::Diff d = lrc::Diff::between(twin, page_bytes(page), kDiffWord);
    set_access(page, PageAccess::Read);
    if (d.empty()) continue;
    diff_bytes_ += d.encoded_bytes();
    ++diffs_made_;
    diffs_.emplace(std::pair{page, rec.seq}, std::move(d).take_storage());
    rec.pages.push_back(page);
  }
  twins_.clear();
  if (rec.pages.empty()) return false;  // written back unchanged: nothing to tell anyone
  vt_[self_] = rec.seq;
  rec.vt = vt_;
  intervals_[self_].push_back(std::move(rec));
  return true;
}

std::vector<const IntervalRecord*> LrcNode::unseen_by(const VectorTime& known) const {
  if (known.size() != vt_.size())
    throw std::runtime_error("malformed message: a vector time of another size");
  std::vector<const IntervalRecord*> out;
  for (std::size_t c = 0; c < intervals_.size(); ++c) {
    if (known[c] < dropped_[c])  // every node had seen them when they were dropped: a peer out of step
      throw std::logic_error(
          fmt::format("node {} was asked for intervals of node {} it has collected", self_, c));
    for (std::uint32_t seq = known[c] + 1; seq <= vt_[c]; ++seq)
      out.push_back(&intervals_[c][seq - dropped_[c] - 1]);
  }
  return out;
}

std::vector<const IntervalRecord*> LrcNode::own_after(std::uint32_t after) const {
  std::vector<const IntervalRecord*> out;
  for (std::uint32_t seq = std::max(after, dropped_[self_]) + 1; seq <= vt_[self_]; ++seq)
    out.push_back(&intervals_[self_][seq - dropped_[self_] - 1]);
  return out;
}

void LrcNode::incorporate(std::span<const IntervalRecord> intervals) {
  for (const IntervalRecord& rec : intervals) {
    if (rec.creator >= intervals_.size() || rec.vt.size() != vt_.size())
      throw std::runtime_error("malformed message: an interval of an unknown node");
    const std::uint32_t known = vt_[rec.creator];
    if (rec.seq <= known) continue;  // already known (it came by two paths)
    if (rec.seq != known + 1)
      throw std::logic_error(fmt::format("node {} received interval {} of node {} while it knows {}", self_,
                                         rec.seq, rec.creator, known));
    intervals_[rec.creator].push_back(rec);
    vt_[rec.creator] = rec.seq;
    if (rec.creator == self_) continue;
    for (std::uint32_t page : rec.pages) {
      if (page >= access_.size()) throw std::runtime_error("malformed message: a page outside the heap");
      if (twins_.count(page) != 0)
        throw std::logic_error("write notice for a page written in the open interval");
      pending_[page].emplace_back(rec.creator, rec.seq);
      set_access(page, PageAccess::None);
    }
  }
}

std::vector<std::uint32_t> LrcNode::invalid_pages() const {
  std::vector<std::uint32_t> out;
  for (const auto& [page, notices] : pending_) out.push_back(page);
  return out;
}

void LrcNode::discard_history() {
  if (!pending_.empty() || !twins_.empty())
    throw std::logic_error("garbage collection with invalid or written pages");
  for (std::size_t c = 0; c < intervals_.size(); ++c) {
    dropped_[c] = vt_[c];
    intervals_[c].clear();
  }
  diffs_.clear();
  diff_bytes_ = 0;
}

std::span<const std::byte> LrcNode::diff(std::uint32_t page, std::uint32_t seq) const {
  const auto it = diffs_.find({page, seq});
  if (it == diffs_.end()) return {};
  return it->second;
}

std::vector<std::uint32_t> LrcNode::take_access_changes() {
  std::vector<std::uint32_t> out;
  out.swap(changed_);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace ncp2::real
