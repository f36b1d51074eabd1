// What a finished emulated run leaves (run/publish.hpp): its statistics JSON, its database and the
// per-scope host counters, each said on the terminal, and the exit code they make together.
#include "run/publish.hpp"

#include <fmt/format.h>

#include "carnival/exit_codes.hpp"
#include "perf_counters/scope_counters.hpp"

namespace ncp2::run {

namespace {

using carnival::kExitDeadlock;
using carnival::kExitFailure;
using carnival::kExitLimit;
using carnival::kExitOk;
using carnival::kExitRaces;

// The database line of the summary.
void print_database(const StoredDatabase& d) {
  const std::string& db = d.path;
  if (!d.note.empty()) fmt::print(stderr, "ncp2: {}\n", d.note);
  fmt::print(
      "database  {} ({} profile cells, {} wait instances{}); open it with: carnival {}  or: ncp2 report {}\n",
      db, d.profile_cells, d.wait_instances,
      d.waits_dropped ? fmt::format(", {} more summarized only", d.waits_dropped) : std::string(), db, db);
}

// Appends the per-scope counters to the stored database; false (after saying why) on failure.
bool store_scope_counters(const std::string& db, const counters::ScopeCounterMeter& meter) {
  try {
    counters::append_scope_counters(db, meter.events(), meter.rows());
    std::string counted;
    for (const auto& e : meter.events())
      if (e.available) counted += (counted.empty() ? "" : ", ") + e.name;
    fmt::print("counters  per scope in {} (table scope_counters): {}\n", db,
               counted.empty() ? "none" : counted);
    for (const auto& e : meter.events())
      if (!e.available) fmt::print(stderr, "ncp2: --scope-counters: {} not counted: {}\n", e.name, e.reason);
    return true;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return false;
  }
}

}  // namespace

// After the summary: the statistics JSON, the database, the per-scope counters. The exit code.
int publish(const RunSession& session, RunOutcome& outcome, const std::string& db,
            const counters::ScopeCounterMeter* scope_meter) {
  try {
    session.write_stats(outcome);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitFailure;
  }
  bool stored = true;
  std::string stored_at = db;
  if (!db.empty()) {
    try {
      const StoredDatabase d = session.write_database(outcome);
      print_database(d);
      stored_at = d.path;
    } catch (const std::exception& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      stored = false;
    }
  }
  if (scope_meter && stored) stored = store_scope_counters(stored_at, *scope_meter);
  const bool racy = outcome.status == RunStatus::Completed && !outcome.races.empty();
  if (racy) {
    fmt::print(stderr, "ncp2: {}\n", outcome.verification);
    return stored ? kExitRaces : kExitFailure;
  }
  if (outcome.status == RunStatus::Completed && !outcome.verified)
    fmt::print(stderr, "ncp2: verification failed: {}\n", outcome.verification);
  if (outcome.status == RunStatus::Stopped)
    fmt::print(stderr, "ncp2: interrupted; the partial results are marked incomplete\n");
  if (outcome.status == RunStatus::Deadlock) return kExitDeadlock;
  if (outcome.status == RunStatus::TimeLimit) return kExitLimit;
  return outcome.ok() && stored ? kExitOk : kExitFailure;
}

}  // namespace ncp2::run
