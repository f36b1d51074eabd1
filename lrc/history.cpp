// The intervals a node knows of (lrc/history.hpp).
#include "lrc/history.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace ncp2::lrc {

std::uint64_t order_key(const VectorTime& vt) {
  return std::accumulate(vt.begin(), vt.end(), std::uint64_t{0});
}

History::History(std::size_t nodes) : by_creator_(nodes), discarded_(nodes, 0) {}

void History::add(IntervalRecord record) {
  const auto q = static_cast<std::size_t>(index(record.creator));
  if (q >= by_creator_.size() || record.vt.size() != by_creator_.size())
    throw std::runtime_error("malformed interval record: an unknown node or a vector time of another size");
  const std::uint32_t newest = discarded_[q] + static_cast<std::uint32_t>(by_creator_[q].size());
  if (record.seq <= newest) return;  // already held: it came by two paths
  if (record.seq != newest + 1)
    throw std::logic_error(
        fmt::format("interval {} of node {} arrived while only {} are known", record.seq, q, newest));
  record.order_key = order_key(record.vt);
  by_creator_[q].push_back(std::move(record));
}

bool History::holds(NodeId creator, std::uint32_t seq) const {
  const auto q = static_cast<std::size_t>(index(creator));
  return seq > discarded_[q] && seq <= discarded_[q] + by_creator_[q].size();
}

const IntervalRecord& History::record(NodeId creator, std::uint32_t seq) const {
  const auto q = static_cast<std::size_t>(index(creator));
  if (!holds(creator, seq))
    throw std::logic_error(fmt::format("interval {} of node {} is not known here (known: {}..{})", seq, q,
                                       discarded_[q] + 1, discarded_[q] + by_creator_[q].size()));
  return by_creator_[q][seq - 1 - discarded_[q]];
}

std::size_t History::bytes_between(const VectorTime& from, const VectorTime& to) const {
  std::size_t bytes = 0;
  for (std::size_t q = 0; q < to.size(); ++q) {
    const auto& records = by_creator_[q];
    for (std::uint32_t i = from[q] + 1; i <= to[q]; ++i) {
      if (i <= discarded_[q]) throw std::logic_error("bytes of intervals already discarded");
      bytes += 8 + 4 * to.size() + 4 * records[i - 1 - discarded_[q]].pages.size();
    }
  }
  return bytes;
}

void History::discard(const VectorTime& upto) {
  for (std::size_t q = 0; q < by_creator_.size(); ++q) {
    if (upto[q] <= discarded_[q]) continue;
    auto& records = by_creator_[q];
    const std::size_t drop = std::min<std::size_t>(upto[q] - discarded_[q], records.size());
    records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(drop));
    discarded_[q] += static_cast<std::uint32_t>(drop);
  }
}

}  // namespace ncp2::lrc
