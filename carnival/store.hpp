#pragma once
// The SQLite store's write side: one file per run, in the schema of docs/schema.md (PRAGMA
// user_version kSchemaVersion, PRAGMA application_id kApplicationId); the read side is
// carnival/run_reader.hpp. Writing is atomic: the file is built as
// "<path>.tmp-<pid>" and renamed over <path> at the end; its `runs` row says 'incomplete' until
// the last statement sets the final status, so an interrupted write is recognisable.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>

#include "carnival/model.hpp"
#include "carnival/store_error.hpp"
#include "carnival/store_schema.hpp"

namespace ncp2::carnival {

namespace sql {
class Db;
class Stmt;
}  // namespace sql

inline constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

struct WriteOptions {
  bool force = false;                          // replace an existing file
  std::size_t max_wait_rows = kUnlimited;      // cap on `waits` rows; `wait_summary` stays complete
  std::size_t max_timeline_rows = kUnlimited;  // cap on `timeline` rows
  bool clocks_table = false;  // create the table `clocks` (a real run's; the caller inserts its rows)
};

// Writes a whole run. If data.wait_summary is empty it is computed from data.waits (before the
// cap), so pass the summary whenever the waits are already incomplete (data.waits_dropped > 0).
// Throws StoreError (existing file without force, unwritable directory, a value the schema
// rejects); then nothing is left behind and an existing file is untouched.
void write_run(const std::string& path, const RunData& data, const WriteOptions& options = {});

// Streaming writer for long runs: rows go to the temporary file in batches while the run goes
// on; finish() renames the file into place, abort() too (with status 'incomplete', keeping the
// partial results). Destroying a writer that was neither finished nor aborted deletes the
// temporary file. Not thread-safe; abort() is not async-signal-safe: a SIGINT handler sets a flag,
// and the run loop calls abort() when it sees it.
class RunWriter {
 public:
  RunWriter();
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // Creates "<path>.tmp-<pid>" with the schema, the categories and the `runs` row (from `info`,
  // with status 'incomplete'). Throws StoreError if <path> exists and !options.force.
  void open(const std::string& path, const RunInfo& info, const WriteOptions& options = {});
  [[nodiscard]] bool is_open() const;
  [[nodiscard]] const std::string& temp_path() const { return temp_path_; }

  void append_sources(std::span<const SourceFile> sources);
  void append_scopes(std::span<const Scope> scopes);
  // Instances beyond max_wait_rows are counted in waits_dropped, not stored; every appended wait
  // is accumulated into the summary that finish() writes if it is given none.
  void append_waits(std::span<const WaitRow> waits);
  void append_profile(std::span<const ProfileCell> cells);
  void append_timeline(std::span<const Segment> segments);

  // Writes everything in `rest` (its vectors in addition to what was appended; its wait_summary,
  // if not empty, instead of the accumulated one; its waits_dropped and timeline_dropped added to
  // the writer's), the indexes, the meta table, and LAST the run row with rest.run (its status),
  // then renames the file over the target. Throws StoreError; the temporary file is then deleted.
  void finish(const RunData& rest);
  // Keeps what was written: status 'incomplete' with `message`, the accumulated summary, the
  // indexes; renames the file over the target. Throws StoreError if that fails.
  void abort(std::string_view message = "interrupted");

  [[nodiscard]] std::uint64_t waits_written() const { return waits_written_; }
  [[nodiscard]] std::uint64_t waits_dropped() const { return waits_dropped_; }

 private:
  struct Statements;
  using SummaryKey =
      std::tuple<int, std::uint32_t, std::string, std::string>;  // node, scope, operation, kind

  void check_open(std::string_view what) const;
  void maybe_commit();
  void accumulate(std::span<const WaitRow> waits);
  WaitSummary& summary_of(const WaitRow& w);          // its row of summary_, through summary_cache_
  void insert_waits(std::span<const WaitRow> waits);  // with the cap, without the summary
  void write_summary(std::span<const WaitSummary> rows);
  void close_and_rename(std::string_view status, std::string_view message, const RunInfo* info);
  void discard() noexcept;

  std::unique_ptr<sql::Db> db_;
  std::unique_ptr<Statements> st_;
  std::string path_;
  std::string temp_path_;
  WriteOptions options_;
  RunInfo info_;
  std::int64_t run_id_ = 1;
  std::size_t rows_in_transaction_ = 0;
  std::uint64_t waits_written_ = 0;
  std::uint64_t waits_dropped_ = 0;
  std::uint64_t timeline_written_ = 0;
  std::uint64_t timeline_dropped_ = 0;
  std::map<SummaryKey, WaitSummary> summary_;
  // Direct-mapped cache in front of summary_ (whose nodes never move): a hit costs a few compares
  // instead of a map look-up with a key of two strings (docs/performance.md, CARNIVAL store).
  std::array<WaitSummary*, 256> summary_cache_{};
};

}  // namespace ncp2::carnival
