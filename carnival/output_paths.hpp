#pragma once
// Outputs checked before a run starts, so that a run never ends in "cannot write" after its work
// is done (issue 17): the directory exists and takes a new file, the path is no directory, an
// existing database is replaced only with --force and only when it is one of ours, and the
// temporary files of killed runs are found. Throws OutputError with the message a user reads.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ncp2::carnival {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file the run will create or replace (`option` names it in messages: "--stats-json").
void check_output_file(const std::string& path, std::string_view option);

// --db: as check_output_file, and an existing file needs `force` and must be an NCP2-Carnival
// file (a run's or counters' database), never a text file or a foreign SQLite file.
void check_database_output(const std::string& path, bool force);

// The status of the run stored in `path` ("complete", "incomplete", ...), or none when the path
// holds no readable run.
std::optional<std::string> stored_run_status(const std::string& path);

// Where an incomplete run goes when `path` holds a complete one (never replaced by a partial run):
// "<path>.incomplete", or "<path>.incomplete-2", ... — the first name not taken.
std::string incomplete_run_path(const std::string& path);

// Temporary files "<path>.tmp-PID" of writers that no longer run (killed before they could clean
// up): removed; their names returned for the message.
std::vector<std::string> remove_stale_temporaries(const std::string& path);

}  // namespace ncp2::carnival
