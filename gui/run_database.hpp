#pragma once
// What the GUI reads of a CARNIVAL database (docs/schema.md), without Qt, through carnival's run
// reader (carnival/run_reader.hpp: the SQL and the rows' decoding): only what the first paint
// needs (the run, the categories, the sources, the scopes, the profile summed over operations, the
// wait summary, the data races of a run with --detect-races).
// Wait instances (possibly millions) are never loaded: the causes of one CPWait Map row are
// queried on demand. Each call opens its own read-only connection, so calls may run on worker
// threads.
#include <cstdint>
#include <string>
#include <vector>

#include "carnival/model.hpp"
#include "carnival/store_error.hpp"

namespace ncp2::gui {

// A category as the file describes it (colours are data: the `categories` table).
using CategoryStyle = carnival::CategoryInfo;

// What the views need, all of it small: O(scopes x nodes x categories), never O(waits).
struct RunSummary {
  std::string path;
  carnival::RunInfo run;
  std::string tool_version;
  std::vector<carnival::NodeRow> nodes;
  std::vector<CategoryStyle> categories;  // the 7 profile categories, then the 9 wait parts
  std::vector<carnival::SourceFile> sources;
  std::vector<carnival::Scope> scopes;
  std::vector<carnival::ProfileCell> profile;  // summed over operations (operation is empty)
  std::vector<carnival::WaitSummary> wait_summary;
  std::uint64_t waits_dropped = 0;  // instances not stored (meta), so causes are partial
  // Race detection (schema 4, carnival::RunReader::races): meta race_detection = "on"; false for older
  // stores (no table).
  bool races_checked = false;
  std::vector<carnival::RaceRow> races;  // by id

  // One line each, for the banner: incomplete or failed run, data races, nothing recorded, capped
  // instances.
  [[nodiscard]] std::vector<std::string> warnings() const;
  [[nodiscard]] bool is_empty() const { return profile.empty() && wait_summary.empty(); }
};

// Opens, checks and reads. Throws carnival::StoreError with the messages of docs/schema.md
// ("FILE: no such file", "FILE is not an SQLite database", "FILE is not an NCP2-Carnival
// database (...)", "FILE was written by a newer version (...)", "FILE is corrupt (...)",
// "FILE contains no run"). An incomplete, failed or empty run is read normally (see warnings()).
// The whole-file integrity check is separate (check_integrity): it reads every page, which a
// first paint cannot afford on a large file.
RunSummary load_run_summary(const std::string& path);

// PRAGMA quick_check over the whole file; throws carnival::StoreError "FILE is corrupt (...)".
void check_integrity(const std::string& path);

// Who caused the synchronization delay of one CPWait Map row (scope x kind x operation),
// from the stored wait instances (waits_by_scope index).
struct CauseRow {
  int node = -1;              // -1: not known
  std::int64_t scope = -1;    // -1: not known
  std::int64_t delay_ps = 0;  // synchronization delay caused
  std::uint64_t waits = 0;    // waits it delayed
  std::uint64_t waiting_nodes = 0;
  std::vector<std::pair<int, std::int64_t>> waited;  // each waiting node's delay, longest first
};
struct Causes {
  std::vector<CauseRow> rows;  // by delay, largest first
  std::int64_t total_delay_ps = 0;
};
// node_filter < 0: every waiting node.
Causes query_causes(const std::string& path, std::uint32_t scope, const std::string& kind,
                    const std::string& operation, int node_filter);

}  // namespace ncp2::gui
