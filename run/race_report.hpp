#pragma once
// Race reports in the store's terms (issue 16): the detector's races with their shared allocation,
// offset, program address, source lines and vector times.
#include <vector>

#include "carnival/model.hpp"
#include "dsm/runtime.hpp"
#include "run/workload_names.hpp"
#include "workloads/workload.hpp"

namespace ncp2::run {

// Closes the detector's segments (the end of the run) and describes every race it found.
[[nodiscard]] std::vector<carnival::RaceRow> collect_races(dsm::Runtime& runtime, const Instance& instance);

}  // namespace ncp2::run
