#pragma once
// The contention model of the emulated SMP node's memory bus (docs/scheduling.md, "Contention").
//
// A running job asks d (transactions/µs, all its threads) of the bus at the current step of its
// trace. Alone it gets d, and spends the fraction s = d / (threads x peak_per_thread) of its time
// on bus transfers (a thread cannot issue faster than peak_per_thread: a BBMA comes close).
// When the demands of the running jobs add up to more than the capacity B, every transfer waits
// longer by the same factor X > 1 (one bus, one queue): a job then progresses at
// rate = 1 / ((1 - s) + s X) of its solo speed and is served d x rate, and X is the one factor
// for which the served rates add up to B. A job that never touches the bus (nBBMA) keeps full
// speed; a saturating one slows most. Below B nobody slows: the degradation that Di Xu et al.
// see before saturation comes from bursts inside a quantum, which the node runs step by step.
#include <span>
#include <vector>

#include "scheduling/bandwidth.hpp"

namespace ncp2::sched {

struct BusLoad {
  Bandwidth demand;  // solo demand at this step, all threads
  int threads = 1;
};

struct JobShare {
  double rate = 1;  // solo time per elapsed time, in (0, 1]
  Bandwidth served;
};

class ContentionModel {
 public:
  // Throws std::invalid_argument unless capacity > 0 and peak_per_thread > 0.
  ContentionModel(Bandwidth capacity, Bandwidth peak_per_thread);

  [[nodiscard]] Bandwidth capacity() const { return capacity_; }
  [[nodiscard]] Bandwidth peak_per_thread() const { return peak_per_thread_; }

  // Each running job's speed and served bandwidth, in the order of `loads`.
  [[nodiscard]] std::vector<JobShare> shares(std::span<const BusLoad> loads) const;
  // The stretch X of bus transfers for these loads (1 below saturation).
  [[nodiscard]] double transfer_stretch(std::span<const BusLoad> loads) const;

 private:
  [[nodiscard]] double stall_fraction(const BusLoad& load) const;

  Bandwidth capacity_;
  Bandwidth peak_per_thread_;
};

}  // namespace ncp2::sched
