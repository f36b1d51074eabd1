#pragma once
// A counter run as an SQLite file in the CARNIVAL database format (same application_id and
// user_version as carnival/store.hpp; tables counter_runs, counter_events, counter_samples,
// docs/schema.md). Written like the run store: built as "<path>.tmp-<pid>", synced, renamed over
// <path>; an existing file is replaced only with `force`.
#include <string>

#include "carnival/counters/model.hpp"
#include "carnival/store.hpp"

namespace ncp2::counters {

// Throws carnival::StoreError (file exists without force, unwritable directory...); then nothing
// is left behind and an existing file is untouched.
void write_counter_run(const std::string& path, const CounterRun& run, bool force = false);

// Reads the counter run of a file written by write_counter_run. Throws carnival::StoreError: no
// such file, not SQLite, not ours, no counter tables, a newer schema.
CounterRun read_counter_run(const std::string& path);

// Would write_counter_run(path, ..., force) be refused before anything is run? The message, or "".
std::string check_output_path(const std::string& path, bool force);

}  // namespace ncp2::counters
