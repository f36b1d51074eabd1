#include "real_machine/node_record.hpp"

#include <bit>

#include "carnival/scope_sites.hpp"

namespace ncp2::real {

namespace {
void put(WireWriter& w, double v) { w.u64(std::bit_cast<std::uint64_t>(v)); }
double get(WireReader& r) { return std::bit_cast<double>(r.u64()); }
}  // namespace

void NodeRecord::add(std::uint32_t scope, carnival::Category category, const std::string& operation,
                     double ns) {
  if (ns <= 0) return;
  auto& cell = profile[{scope, category, operation}];
  cell.first += ns;
  ++cell.second;
  note_site(scope);
}

void NodeRecord::add_segment(SegmentRecord s) {
  if (s.end_ns <= s.start_ns) return;
  if (segments.size() >= max_segments) {
    ++segments_dropped;
    return;
  }
  note_site(s.scope);
  segments.push_back(std::move(s));
}

void NodeRecord::note_site(std::uint32_t id) {
  if (id == 0 || sites.count(id) != 0) return;
  const auto all = carnival::scope_sites();
  if (id > all.size()) return;
  const carnival::ScopeSite* s = all[id - 1];
  sites.emplace(id, SiteKey{s->name, s->kind, s->file, s->line, s->end_line});
}

std::vector<std::byte> NodeRecord::encode() const {
  WireWriter w;
  w.u32(static_cast<std::uint32_t>(node));
  put(w, start_ns);
  put(w, finish_ns);
  w.i64(exit_status).text(failure).u32(deadlock ? 1 : 0).u32(limit ? 1 : 0);
  for (const lrc::CounterInfo& c : lrc::kCounterTable) w.u64(counters.*c.member);
  w.u64(sites.size());
  for (const auto& [id, s] : sites)
    w.u32(id).text(s.name).text(s.kind).text(s.file).i64(s.line).i64(s.end_line);
  w.u64(profile.size());
  for (const auto& [key, cell] : profile) {
    w.u32(std::get<0>(key)).u32(static_cast<std::uint32_t>(std::get<1>(key))).text(std::get<2>(key));
    put(w, cell.first);
    w.u64(cell.second);
  }
  w.u64(waits.size());
  for (const MeasuredWait& x : waits) {
    w.u32(x.scope).text(x.operation);
    put(w, x.start_ns);
    put(w, x.duration_ns);
    for (double p : x.parts) put(w, p);
    w.i64(x.cause_node).u64(x.object).i64(x.remote_node);
  }
  w.u64(segments.size()).u64(segments_dropped);
  for (const SegmentRecord& s : segments) {
    w.u32(s.cp ? 1 : 0).u32(static_cast<std::uint32_t>(s.category)).text(s.operation).u32(s.scope);
    put(w, s.start_ns);
    put(w, s.end_ns);
  }
  return std::move(w).take();
}

NodeRecord NodeRecord::decode(std::span<const std::byte> bytes) {
  WireReader r(bytes);
  NodeRecord n;
  n.node = static_cast<int>(r.u32());
  n.start_ns = get(r);
  n.finish_ns = get(r);
  n.exit_status = static_cast<int>(r.i64());
  n.failure = r.text();
  n.deadlock = r.u32() != 0;
  n.limit = r.u32() != 0;
  for (const lrc::CounterInfo& c : lrc::kCounterTable) n.counters.*c.member = r.u64();
  for (std::uint64_t i = 0, count = r.u64(); i < count; ++i) {
    const std::uint32_t id = r.u32();
    SiteKey s;
    s.name = r.text();
    s.kind = r.text();
    s.file = r.text();
    s.line = static_cast<int>(r.i64());
    s.end_line = static_cast<int>(r.i64());
    n.sites.emplace(id, std::move(s));
  }
  for (std::uint64_t i = 0, count = r.u64(); i < count; ++i) {
    const std::uint32_t scope = r.u32();
    const auto category = static_cast<carnival::Category>(r.u32());
    std::string op = r.text();
    const double ns = get(r);
    const std::uint64_t times = r.u64();
    n.profile[{scope, category, std::move(op)}] = {ns, times};
  }
  for (std::uint64_t i = 0, count = r.u64(); i < count; ++i) {
    MeasuredWait x;
    x.scope = r.u32();
    x.operation = r.text();
    x.start_ns = get(r);
    x.duration_ns = get(r);
    for (double& p : x.parts) p = get(r);
    x.cause_node = static_cast<int>(r.i64());
    x.object = r.u64();
    x.remote_node = static_cast<int>(r.i64());
    n.waits.push_back(std::move(x));
  }
  const std::uint64_t segment_count = r.u64();
  n.segments_dropped = r.u64();
  for (std::uint64_t i = 0; i < segment_count; ++i) {
    SegmentRecord s;
    s.cp = r.u32() != 0;
    s.category = static_cast<carnival::Category>(r.u32());
    s.operation = r.text();
    s.scope = r.u32();
    s.start_ns = get(r);
    s.end_ns = get(r);
    n.segments.push_back(std::move(s));
  }
  return n;
}

}  // namespace ncp2::real
