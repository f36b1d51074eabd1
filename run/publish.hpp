#pragma once
// The last step of an emulated run's pipeline (after run_session.hpp's run and the summary): what
// the run leaves behind, and the exit code of `ncp2 run`.
#include <string>

#include "run/run_session.hpp"

namespace ncp2::counters {
class ScopeCounterMeter;
}

namespace ncp2::run {

// Writes the statistics JSON (if asked), the database `db` (if not empty; its line on stdout) and
// the per-scope counters `scope_meter` (if any) into it; says on stderr what failed, a race, a
// failed verification or an interruption. Returns the exit code (carnival/exit_codes.hpp).
int publish(const RunSession& session, RunOutcome& outcome, const std::string& db,
            const counters::ScopeCounterMeter* scope_meter);

}  // namespace ncp2::run
