// The barrier manager (lrc/barrier_manager.hpp).
#include "lrc/barrier_manager.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ncp2::lrc {

BarrierManager::BarrierManager(const ProtocolConfig& config)
    : threshold_(config.gc_threshold_bytes),
      merged_(static_cast<std::size_t>(config.nodes), 0),
      arrival_vt_(static_cast<std::size_t>(config.nodes),
                  VectorTime(static_cast<std::size_t>(config.nodes), 0)) {}

bool BarrierManager::arrive(NodeId from, BarrierId barrier, const VectorTime& vt, std::size_t usage) {
  if (arrived_ == 0) {
    id_ = barrier;
  } else if (id_ != barrier) {
    throw ProtocolError(fmt::format("barrier mismatch: node {} arrived at {} while {} node(s) wait at {}",
                                    index(from), barrier_name(raw(barrier)), arrived_,
                                    barrier_name(raw(id_))));
  }
  ++arrived_;
  merge(merged_, vt);
  arrival_vt_[static_cast<std::size_t>(index(from))] = vt;
  // A program's barrier collects garbage when some node outgrew the threshold (never the
  // protocol's own: the exit, or a collection's second barrier).
  if (usage > threshold_ && is_program_barrier(raw(barrier))) collect_ = true;
  last_ = from;
  return arrived_ == static_cast<int>(arrival_vt_.size());
}

void BarrierManager::reset(const VectorTime& merged) {
  ++episodes_;
  for (auto& vt : arrival_vt_) std::copy(merged.begin(), merged.end(), vt.begin());
  arrived_ = 0;
  collect_ = false;
}

}  // namespace ncp2::lrc
