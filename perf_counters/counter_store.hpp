#pragma once
// A counter run as an SQLite file in the CARNIVAL database format (same application_id and
// user_version as carnival/store.hpp; tables counter_runs, counter_events, counter_samples,
// docs/schema.md). Written like the run store: built as "<path>.tmp-<pid>", synced, renamed over
// <path>; an existing file is replaced only with `force`.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "carnival/store.hpp"
#include "perf_counters/model.hpp"

namespace ncp2::counters {

// Throws carnival::StoreError (file exists without force, unwritable directory...); then nothing
// is left behind and an existing file is untouched.
void write_counter_run(const std::string& path, const CounterRun& run, bool force = false);

// Reads the counter run of a file written by write_counter_run. Throws carnival::StoreError: no
// such file, not SQLite, not ours, no counter tables, a newer schema.
CounterRun read_counter_run(const std::string& path);

// Would write_counter_run(path, ..., force) be refused before anything is run? The message, or "".
std::string check_output_path(const std::string& path, bool force);

// A counter's total over one scope of one node of an emulated run (measured time model).
struct ScopeCounterRow {
  int node = 0;
  std::uint32_t scope = 0;
  std::string event;
  std::optional<double> value;  // nothing: some stretch of it could not be counted
};

// Adds the tables scope_counter_events and scope_counters (docs/schema.md) to the finished run
// database `run_db` (written by carnival::write_run / RunWriter), in one transaction: the file
// has them all or none. Throws carnival::StoreError (not a run database, tables already there).
void append_scope_counters(const std::string& run_db, const std::vector<EventStatus>& events,
                           const std::vector<ScopeCounterRow>& rows);

// Reads them back (empty if the file has none).
std::vector<ScopeCounterRow> read_scope_counters(const std::string& run_db);

}  // namespace ncp2::counters
