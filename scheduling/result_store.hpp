#pragma once
// `ncp2 schedule --db`: an experiment as an SQLite file in the CARNIVAL database format (same
// application_id and user_version), tables schedule_options, schedule_results, schedule_bus
// (docs/schema.md, "Scheduling experiments"). Written like the other stores: a temporary file
// renamed over the path; an existing file is replaced only with `force`.
#include <string>

#include "scheduling/experiment.hpp"

namespace ncp2::sched {

// Would write_experiment(path, ..., force) be refused before anything runs? The message, or "".
std::string check_experiment_output(const std::string& path, bool force);

// Throws carnival::StoreError; then nothing is left behind and an existing file is untouched.
void write_experiment(const std::string& path, const Experiment& experiment, bool force);

}  // namespace ncp2::sched
