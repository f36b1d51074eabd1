#pragma once
// The programs `ncp2 calibrate` runs on real processes, as C source text (built with ncp2-cc at
// calibration time, like a user's program).
namespace ncp2::validation {

// validation/basic_costs.c: the basic operation costs, timed on real processes.
extern const char* const kBasicCostsProgram;

}  // namespace ncp2::validation
