#pragma once
// The data races of a run on the terminal (ncp2 run --detect-races).
#include <string>

#include "run/runner.hpp"

namespace ncp2::cli {

// Prints the count and the first races on stderr (`db`: where the rest are, or "").
void print_races(const run::RunOutcome& outcome, const std::string& db);

}  // namespace ncp2::cli
