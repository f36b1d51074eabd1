#pragma once
// THE read side of a run's database (docs/schema.md): every SELECT over the run tables and the
// decoding of their rows, in one place. `ncp2 report` and `ncp2 export-trace` (read_run),
// `ncp2 compare` (read_compared_run) and the GUI (gui/run_database: the first paint's summary and
// the causes of a CPWait Map row; gui/timeline_model: the timeline) all read through it, each
// only the tables it shows. The column lists come from carnival/store_schema.hpp.
//
// A RunReader is one read-only connection (store_open.hpp's checks) and the file's first run. It
// is not thread-safe: the GUI's workers each open their own. Every method throws StoreError with
// the messages of docs/schema.md (an SQLite error met while reading is one of them).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "carnival/model.hpp"
#include "carnival/store_error.hpp"
#include "carnival/store_races.hpp"

namespace ncp2::carnival {

namespace sql {
class Db;
}  // namespace sql

// Whether the whole-file integrity check (PRAGMA quick_check: every page) runs before the run's
// row is read. A first paint cannot afford it on a large file: the GUI runs it afterwards
// (check_run_file).
enum class Integrity { Deferred, CheckedFirst };

// Which stored wait instances each_wait visits.
enum class WaitFilter {
  All,     // every row, in file order
  Caused,  // those with a cause node and synchronization delay (the GUI's flows), in no given order
};

// The order in which each_segment visits the `timeline` rows.
enum class SegmentOrder {
  File,           // as written
  ByNodeAndStart  // by node, then start (the index timeline_by_node): a lane after the other
};

// The synchronization delay that one cause (node and scope) inflicted on one waiting node, summed
// over the wait instances of one CPWait Map row (RunReader::causes).
struct CauseCell {
  int cause_node = -1;            // -1: not known
  std::int64_t cause_scope = -1;  // -1: not known
  int node = 0;                   // the waiting node
  std::int64_t delay_ps = 0;
  std::uint64_t waits = 0;
};

class RunReader {
 public:
  // Opens `path` read-only with open_store's checks, then reads the first run's row (after the
  // integrity check with Integrity::CheckedFirst). Throws StoreError ("... contains no run" too).
  explicit RunReader(std::string path, Integrity integrity = Integrity::Deferred);
  ~RunReader();
  RunReader(RunReader&&) noexcept;
  RunReader& operator=(RunReader&&) noexcept;
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::int64_t run_id() const { return run_id_; }
  [[nodiscard]] const RunInfo& run() const { return run_; }

  [[nodiscard]] std::vector<NodeRow> nodes() const;       // file order
  [[nodiscard]] std::vector<SourceFile> sources() const;  // file order
  [[nodiscard]] std::vector<Scope> scopes() const;        // by id
  // The file's `categories` table over the catalogue: every category of category_catalogue(), in
  // its order, with the file's own colour and words where the file has the category.
  [[nodiscard]] std::vector<CategoryInfo> categories() const;

  [[nodiscard]] std::vector<ProfileCell> profile() const;  // every cell, file order
  // Summed over operations (`operation` empty): node x scope x category, what the GUI and
  // compare show.
  [[nodiscard]] std::vector<ProfileCell> profile_by_scope() const;

  [[nodiscard]] std::vector<WaitSummary> wait_summary() const;  // file order
  [[nodiscard]] std::vector<WaitRow> waits() const;             // every stored instance, file order
  void each_wait(WaitFilter filter, const std::function<void(const WaitRow&)>& visit) const;
  // The stored instances of one CPWait Map row (scope x kind x operation) with synchronization
  // delay, grouped by cause node, cause scope and waiting node; node_filter < 0: every waiting
  // node. In no given order.
  [[nodiscard]] std::vector<CauseCell> causes(std::uint32_t scope, const std::string& kind,
                                              const std::string& operation, int node_filter) const;

  [[nodiscard]] std::vector<Segment> timeline() const;  // file order
  void each_segment(SegmentOrder order, const std::function<void(const Segment&)>& visit) const;

  // Data races (store_races.hpp): none, and detection off, for files before schema 4.
  [[nodiscard]] StoredRaces races() const;
  // Every node's protocol counts (store_counts.hpp): none for files before schema 5.
  [[nodiscard]] std::vector<ProtocolCount> protocol_counts() const;

  // A `meta` value, if the file has the key.
  [[nodiscard]] std::optional<std::string> meta(std::string_view key) const;
  // A counter kept in `meta` (waits_dropped, timeline_dropped): 0 when absent; throws StoreError
  // "FILE is corrupt: meta 'KEY' is 'VALUE', not a number".
  [[nodiscard]] std::uint64_t meta_count(std::string_view key) const;

 private:
  std::unique_ptr<sql::Db> db_;
  std::string path_;
  std::int64_t run_id_ = 0;
  RunInfo run_;
};

// Reads the (first) run of a store file, every table. Throws StoreError: no such file; "is not
// an SQLite database"; "is not an NCP2-Carnival database" (foreign application_id or missing
// tables); "was written by a newer version (schema N, this tool reads up to M)"; "is corrupt"
// (with PRAGMA quick_check's first finding). An incomplete or failed run is read normally: look at
// data.run.status.
RunData read_run(const std::string& path);

// open_store's checks, then PRAGMA quick_check over the whole file (the GUI, after its first
// paint). Throws StoreError "FILE is corrupt (...)".
void check_run_file(const std::string& path);

}  // namespace ncp2::carnival
