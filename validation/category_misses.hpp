#pragma once
// Why a category's prediction misses (issue 43, eighth session). Protocol work: per operation (the
// hand-offs of faults and Tmk calls, an interval's close at a barrier...). The waits, from the waits
// themselves: per kind of wait, how many there were, how long a typical one took, how long the program took
// to resume once its agent had the reply (PPLWait), and how much of the time was in waits longer
// than a scheduler's time slice — a node's core given to its server only at the host's next tick
// (docs/validation.md, "The model of a real node"), not an exchange. A category can miss by its
// count, by its typical wait or by its slow waits; each asks for a different change of the model.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "carnival/model.hpp"
#include "validation/compared.hpp"

namespace ncp2::validation {

// Waits longer than this waited for a node's scheduler: the busy requests' prompt service takes
// 0.05-0.25 ms on this host, their slow mode 0.5-8 ms around a median of 2-3 ms (the calibrations
// in docs/validation.md); an exchange between two waiting nodes takes 15-80 us.
inline constexpr std::int64_t kSlowWaitPs = 1'000'000'000;  // 1 ms

struct WaitSide {
  std::uint64_t count = 0;
  double total_s = 0;
  double median_us = 0;
  double mean_us = 0;
  double resume_us = 0;          // the mean PPLWait: the reply was in, the program not yet running
  std::uint64_t slow_count = 0;  // waits over kSlowWaitPs
  double slow_s = 0;
};

struct WaitKindStats {
  std::string operation;  // lrc::to_string of the operation the program waited in
  WaitSide measured;
  WaitSide predicted;
};

// The program's waits (kind "Wait") of each stored run, per operation, in `operations`' order.
[[nodiscard]] std::vector<WaitKindStats> wait_stats(const carnival::RunData& measured,
                                                    const carnival::RunData& predicted,
                                                    const std::vector<std::string>& operations);

// The protocol work (Extra) of each side per operation (`name`; "none": outside any), summed over
// the nodes, largest measured first.
[[nodiscard]] std::vector<Compared> protocol_work_by_operation(const carnival::RunData& measured,
                                                               const carnival::RunData& predicted);

// A note when the protocol work misses by more than `miss_pct` percent and more than 1 ms: the
// three operations that make most of the difference.
[[nodiscard]] std::vector<std::string> protocol_work_miss_notes(const std::vector<Compared>& by_operation,
                                                                double miss_pct);

// One note per operation whose waits' time the prediction misses by more than `miss_pct` percent
// and more than 1 ms: how much of the difference is in the slow waits and how much in the rest,
// with the counts, medians and resumptions that make it.
[[nodiscard]] std::vector<std::string> wait_miss_notes(const std::vector<WaitKindStats>& stats,
                                                       double miss_pct);

// The table of comparison.txt: two lines per operation (measured, predicted).
[[nodiscard]] std::string wait_stats_text(const std::vector<WaitKindStats>& stats);
// [{"operation", "measured": {"count", "total_s", "median_us", "mean_us", "resume_us", "slow_count",
//  "slow_s"}, "predicted": {...}}]
[[nodiscard]] nlohmann::json wait_stats_json(const std::vector<WaitKindStats>& stats);

}  // namespace ncp2::validation
