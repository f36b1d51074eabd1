#pragma once
// The synthetic jobs of the experiments (docs/scheduling.md, "Applications"): the survey's
// microbenchmarks and a few characterized programs, each a demand trace made by a fixed,
// seeded recipe (the same every time).
//
// bbma       1 thread, endless, near-0 % hit rate: only transfers (13.88 transactions/µs alone on
//            the calibrated bus).
// nbbma      1 thread, endless, near-100 % hit rate: 0.05 transactions/µs.
// The programs need 2 processors each and run about 8 s alone:
// stream     steadily high, the most demanding (~22/µs; NAS CG, SP)
// compute    steadily low (~2/µs; NAS EP, Splash water)
// phases     regular 1.5 s phases, high then low (NAS MG)
// bursts     irregular 5 ms bursts inside every quantum, mean ~9/µs (Di Xu's fluctuations)
// irregular  high (~21/µs) with dips of about one quantum at irregular times (what fools
//            Latest Quantum in the survey's set B)
// medium     ~10/µs drifting slowly (NAS LU, FT)
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/trace.hpp"

namespace ncp2::sched {

DemandTrace bbma_trace();
DemandTrace nbbma_trace();

// The characterized programs, in the order of the tables.
std::vector<DemandTrace> characterized_programs();
// Their names: stream, compute, phases, bursts, irregular, medium.
std::vector<std::string> characterized_program_names();

// The step of the synthetic traces: fine enough to hold bursts inside a 100 ms quantum.
inline constexpr Duration kSyntheticStep = emu::milliseconds(5);

}  // namespace ncp2::sched
