// Intervals, vector time and write notices: closing an interval, learning others' intervals.
#include "dsm/runtime.hpp"

#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::WorkContext;

void Runtime::close_interval(NodeState& ns) {
  if (ns.dirty.empty()) return;
  ns.pp->compute(config_.dsm.per_write_notice * static_cast<std::int64_t>(ns.dirty.size()));
  const auto me = static_cast<std::size_t>(emu::index(ns.id));
  ++ns.vt[me];
  IntervalRecord rec;
  rec.vt = ns.vt;
  rec.pages = ns.dirty;
  for (auto v : rec.vt) rec.order_key += v;
  intervals_[me].push_back(std::move(rec));
  for (PageId page : ns.dirty) {
    const std::uint32_t r = page_region_[raw(page)];
    auto& access = ns.regions[r].access[raw(page) - regions_[r].first_page];
    if (access == static_cast<std::uint8_t>(Access::Write)) {
      access = static_cast<std::uint8_t>(Access::Read);
      ns.note_access_change(page);
    }
  }
  ns.dirty.clear();
}

std::size_t Runtime::intervals_bytes(const VectorTime& from, const VectorTime& to) const {
  std::size_t bytes = 0;
  for (std::size_t q = 0; q < to.size(); ++q)
    for (std::uint32_t i = from[q] + 1; i <= to[q]; ++i)
      bytes += 8 + 4 * to.size() + 4 * intervals_[q][i - 1].pages.size();
  return bytes;
}

std::size_t Runtime::usage_bytes(const NodeState& ns) const { return ns.diff_bytes + ns.notice_count * 8; }

// Learns the intervals up to `learned`: each page they wrote gets a write notice and is
// invalidated (its own pending modifications are first saved as a diff).
void Runtime::apply_intervals(NodeState& ns, const VectorTime& learned, WorkContext* ctx) {
  const auto me = static_cast<std::size_t>(emu::index(ns.id));
  std::size_t notices = 0;
  for (std::size_t q = 0; q < learned.size(); ++q) {
    if (q == me) continue;
    for (std::uint32_t i = ns.vt[q] + 1; i <= learned[q]; ++i) {
      for (PageId page : intervals_[q][i - 1].pages) {
        PageState& ps = ns.pages[raw(page)];
        ps.notices.emplace_back(emu::node_id(static_cast<int>(q)), i);
        ++notices;
        if (ps.has_twin()) make_diff(ns, page, ps.twin_interval, ctx);
        charge_lazy_diff(ns, page, ctx);
        const std::uint32_t r = page_region_[raw(page)];
        ns.regions[r].access[raw(page) - regions_[r].first_page] = static_cast<std::uint8_t>(Access::None);
        ns.note_access_change(page);
      }
    }
  }
  merge_into(ns.vt, learned);
  ns.notice_count += notices;
  ns.stats.write_notices += notices;
  const emu::Duration cost = config_.dsm.per_write_notice * static_cast<std::int64_t>(notices);
  if (ctx)
    ctx->spend(cost);
  else
    ns.pp->compute(cost);
}

}  // namespace ncp2::dsm
