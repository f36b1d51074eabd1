#pragma once
// The contention model of the emulated SMP node's memory bus (docs/scheduling.md, "Contention").
//
// One bus of capacity B, one queue. A bus transfer takes the memory latency of an idle bus times
// L(U) = 1 + k U / (1 - U), U the bus utilization (served / B): the M/M/1 waiting time, weighted
// by k, the queueing constant (the bus's service time over the idle memory latency). So every
// job slows a little as the bus fills, long before it saturates, and a great deal near U = 1:
// the loss Di Xu et al. see before saturation, and Antonopoulos et al.'s heavy loss on a
// saturated bus, come from one term.
//
// A job's trace gives d, what it is served alone (all its threads). Alone it sees L(d / B); it
// spends the fraction s of its solo time on transfers, s = d L(d / B) / (threads x peak), peak
// being what a thread that only transfers would issue on an idle bus. Beside others, at
// utilization U, its transfers take L(U) / L(d / B) as long: it progresses at
// rate = 1 / ((1 - s) + s L(U) / L(d / B)) of its solo speed and is served d x rate. U is the one
// utilization at which the served rates add up to U x B (unique: the served sum falls as U
// rises; found by bisection, deterministic). Alone, a job gets its trace exactly.
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

// The constants of the model, calibrated on the survey's experiment groups (docs/scheduling.md,
// "Calibration"): B and the most demanding application's solo bandwidth are read in seed 003;
// the thread peak is our assumption (two threads that only transfer could fill an idle bus).
inline constexpr double kSurveyBusCapacity = 29.5;          // transactions/µs, seed 003 §2.1
inline constexpr double kSurveyMostDemandingAlone = 23.31;  // transactions/µs, 2 processors, seed 003 §2.1
inline constexpr double kDefaultThreadPeak = kSurveyBusCapacity / 2;

// The queueing constant k for which `threads` threads that only transfer, alone on an idle node,
// draw `solo` of a bus of `capacity` (each would issue `peak` on an idle bus). Throws
// std::invalid_argument when no k >= 0 does (solo not below capacity, or above threads x peak).
double calibrated_queueing(Bandwidth capacity, Bandwidth peak, int threads, Bandwidth solo);

// k for the survey's machine: two threads that only transfer draw 23.31 of 29.5 (about 0.0705).
double survey_queueing();

class ContentionModel {
 public:
  // Throws std::invalid_argument unless capacity > 0, peak_per_thread > 0 and queueing > 0.
  ContentionModel(Bandwidth capacity, Bandwidth peak_per_thread, double queueing);

  [[nodiscard]] Bandwidth capacity() const { return capacity_; }
  [[nodiscard]] Bandwidth peak_per_thread() const { return peak_per_thread_; }
  [[nodiscard]] double queueing() const { return queueing_; }

  // Each running job's speed and served bandwidth, in the order of `loads`.
  [[nodiscard]] std::vector<JobShare> shares(std::span<const BusLoad> loads) const;
  // The bus utilization U (served / capacity, in [0, 1)) these loads reach together.
  [[nodiscard]] double utilization(std::span<const BusLoad> loads) const;
  // The memory latency at utilization u, relative to an idle bus: L(u) = 1 + k u / (1 - u).
  [[nodiscard]] double latency(double u) const;
  // What `threads` threads that do nothing but transfer draw alone (a BBMA: threads = 1).
  [[nodiscard]] Bandwidth bus_bound_solo(int threads) const;

 private:
  struct Solo {
    double stall = 0;    // s: fraction of solo time on transfers
    double latency = 1;  // L at the job's solo utilization
  };
  [[nodiscard]] Solo solo_of(const BusLoad& load) const;
  [[nodiscard]] std::vector<Solo> solos_of(std::span<const BusLoad> loads) const;
  [[nodiscard]] double utilization(std::span<const BusLoad> loads, std::span<const Solo> solo) const;

  Bandwidth capacity_;
  Bandwidth peak_per_thread_;
  double queueing_;
};

}  // namespace ncp2::sched
