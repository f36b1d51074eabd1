#pragma once
// How a built-in workload's diagnoses name places in its code: a stale span's use and where the
// span was taken (dsm::Runtime::check_spans), as "workloads/sor.cpp:123" — the executable's own
// debug information (debug_info/own_code.hpp), paths relative to the source tree.
#include "dsm/runtime.hpp"

namespace ncp2::run {

[[nodiscard]] dsm::Runtime::CodePlaces code_places();

}  // namespace ncp2::run
