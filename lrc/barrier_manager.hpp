#pragma once
// The barrier manager (config().barrier_manager, TreadMarks' node 0): every node's arrival brings
// its vector time and the intervals the manager may lack; when the last one arrives, each node is
// released with the intervals it has not seen, and told to collect garbage when some node's diffs
// and write notices outgrew the threshold. 2(n-1) messages per barrier.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "lrc/config.hpp"
#include "lrc/types.hpp"

namespace ncp2::lrc {

class BarrierManager {
 public:
  explicit BarrierManager(const ProtocolConfig& config);

  // Node `from` arrives at `barrier` knowing the intervals up to `vt`, holding `usage` bytes of
  // diffs and notices. Returns true when it is the last. Throws ProtocolError when the node waits
  // at another barrier than those already there (every node would wait for ever).
  bool arrive(NodeId from, BarrierId barrier, const VectorTime& vt, std::size_t usage);

  struct Release {
    VectorTime merged;  // every node's intervals up to here
    bool collect = false;
    NodeId last{};  // the last to arrive: whom the others waited for
  };
  // After the last arrival: calls lacking(node, known, merged) for each node (`known`: what it had
  // seen when it arrived; it lacks the intervals after that up to `merged`), then resets for the
  // next episode before returning, so that early arrivals of the next one may come meanwhile.
  template <class F>
  Release release(F&& lacking) {
    Release r{merged_, collect_, last_};
    for (std::size_t j = 0; j < arrival_vt_.size(); ++j)
      lacking(node_id(static_cast<int>(j)), arrival_vt_[j], r.merged);
    reset(r.merged);
    return r;
  }

  [[nodiscard]] int arrived() const { return arrived_; }
  [[nodiscard]] BarrierId current() const { return id_; }  // the barrier they wait at, when arrived() > 0
  [[nodiscard]] std::uint64_t episodes() const { return episodes_; }

 private:
  void reset(const VectorTime& merged);

  std::size_t threshold_;
  std::uint64_t episodes_ = 0;
  int arrived_ = 0;
  BarrierId id_{};
  VectorTime merged_;
  bool collect_ = false;
  // Per node, what it had seen when it arrived (after a release: the release's merged time). Not
  // copied at a release: n^2 entries (1 GiB on 16,384 nodes).
  std::vector<VectorTime> arrival_vt_;
  NodeId last_{};
};

}  // namespace ncp2::lrc
