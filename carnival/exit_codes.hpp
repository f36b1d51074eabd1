#pragma once
// The exit codes of `ncp2` and of a real run's nodes (ncp2-node reports its run's code to ncp2),
// defined once: what a script sees of a run.
#include <string_view>

namespace ncp2::carnival {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the run failed (an error, verification, I/O)
inline constexpr int kExitUsage = 2;    // bad command line or configuration
inline constexpr int kExitDeadlock =
    3;                                // the run deadlocked: every node blocked (the diagnosis says on what)
inline constexpr int kExitRaces = 4;  // the run completed with data races (--detect-races)
inline constexpr int kExitLimit = 5;  // stopped by --max-virtual-time or --max-wall (results kept)

// A stored run's code from its status (runs.status) and whether it verified.
constexpr int exit_code_of(std::string_view status, bool verified) {
  if (status == "deadlock") return kExitDeadlock;
  if (status == "incomplete") return kExitLimit;
  return status == "complete" && verified ? kExitOk : kExitFailure;
}

}  // namespace ncp2::carnival
