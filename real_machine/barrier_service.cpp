// The barriers' service on a node of a real run (barrier_service.hpp).
#include "real_machine/barrier_service.hpp"

#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::real {

BarrierService::BarrierService(Transport& transport, const RunClock& clock,
                               const lrc::ProtocolConfig& protocol, lrc::History& history,
                               const lrc::PageDirectory& directory, std::mutex& core_mutex)
    : transport_(transport),
      clock_(clock),
      history_(history),
      directory_(directory),
      core_mutex_(core_mutex) {
  if (lrc::index(protocol.barrier_manager) >= transport.size())
    throw std::runtime_error(fmt::format("the barrier manager, node {}, is not one of the {} nodes",
                                         lrc::index(protocol.barrier_manager), transport.size()));
  if (protocol.barrier_manager == lrc::node_id(transport.rank()))
    manager_ = std::make_unique<lrc::BarrierManager>(protocol);
}

void BarrierService::distribute(std::vector<std::byte> record) {
  outgoing_.emplace_back(std::move(record), 1);
}

void BarrierService::write_distributed(WireWriter& w) {
  w.u64(outgoing_.size());
  for (const auto& [bytes, count] : outgoing_) w.bytes(bytes).u64(count);
  outgoing_.clear();
}

// The records an arrival brings join this node's history, and the last arrival releases everyone.
bool BarrierService::on_arrive(const Message& m) {
  WireReader r(m.body);
  const std::uint32_t id = r.u32();
  const lrc::VectorTime vt = r.u32s();
  const std::uint64_t usage = r.u64();
  std::vector<lrc::IntervalRecord> records = read_records(r, directory_.pages());
  Distributed distributed;
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    const auto bytes = r.bytes();
    distributed.emplace_back(std::vector<std::byte>(bytes.begin(), bytes.end()), r.u64());
  }
  const std::lock_guard guard(core_mutex_);
  if (!manager_) throw std::runtime_error("a barrier arrival at a node that does not manage barriers");
  const auto nodes = static_cast<std::size_t>(transport_.size());
  if (vt.size() != nodes) throw std::runtime_error("malformed message: a vector time of another size");
  for (lrc::IntervalRecord& rec : records) history_.add(std::move(rec));
  episode_.arrived_ns.resize(nodes, 0);
  std::move(distributed.begin(), distributed.end(), std::back_inserter(episode_.distributed));
  const bool last = manager_->arrive(lrc::node_id(m.from), lrc::BarrierId{id}, vt, usage);
  episode_.arrived_ns[static_cast<std::size_t>(m.from)] = static_cast<double>(clock_.now_ns());
  episode_.last_ns = episode_.arrived_ns[static_cast<std::size_t>(m.from)];
  if (last) release_everyone(id);
  return last;
}

// Each node's release: the merged vector time, the records it lacks, how long it waited for the
// last arrival, who that was, node 0's distributed records (for the others) and whether to collect.
void BarrierService::release_everyone(std::uint32_t id) {
  std::vector<std::vector<std::byte>> bodies(static_cast<std::size_t>(transport_.size()));
  const lrc::BarrierManager::Release release =
      manager_->release([&](lrc::NodeId j, const lrc::VectorTime& known, const lrc::VectorTime& merged) {
        std::vector<const lrc::IntervalRecord*> lacking;
        history_.for_each_between(known, merged,
                                  [&](const lrc::IntervalRecord& r) { lacking.push_back(&r); });
        const auto k = static_cast<std::size_t>(lrc::index(j));
        WireWriter w;
        w.u32(id).u32s(merged);
        write_records(w, lacking);
        w.i64(static_cast<std::int64_t>(episode_.last_ns - episode_.arrived_ns[k]));
        bodies[k] = std::move(w).take();
      });
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    WireWriter w;
    w.i64(lrc::index(release.last));
    w.u64(k == 0 ? 0 : episode_.distributed.size());
    if (k != 0)
      for (const auto& [bytes, records] : episode_.distributed) w.bytes(bytes).u64(records);
    w.u32(release.collect ? 1 : 0);
    const std::vector<std::byte> tail = std::move(w).take();
    bodies[k].insert(bodies[k].end(), tail.begin(), tail.end());
    transport_.send(static_cast<int>(k), Tag::BarrierRelease, std::move(bodies[k]));
  }
  episode_.distributed.clear();
}

}  // namespace ncp2::real
