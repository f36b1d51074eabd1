#pragma once
// Two runs side by side (the same workload on ncp2 and treadmarks, emulated against real, before
// against after): per scope (matched by name, file and lines), per category, per wait kind and
// operation, per wait part, each with A, B, B-A and B/A. `ncp2 compare` and the GUI's
// File > Compare with… both use it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "carnival/model.hpp"

namespace ncp2::carnival {

// What a comparison needs of one run, all of it small (never the wait instances or the timeline).
struct ComparedRun {
  std::string path;
  RunInfo run;
  std::vector<Scope> scopes;
  std::vector<ProfileCell> profile;  // summed over operations
  std::vector<WaitSummary> wait_summary;
};

// Opens and reads a run file. Throws StoreError with the messages of docs/schema.md.
ComparedRun read_compared_run(const std::string& path);

// How a scope is named and matched across runs: "name (file:begin-end)", or the name alone when
// it has no file. A scope row's key is this label.
std::string compare_scope_label(const Scope& s);

enum class CompareSection { Run, Scope, Category, Wait, Part };
std::string_view to_string(CompareSection s);  // "run", "scope", "category", "wait", "part"

struct CompareRow {
  CompareSection section = CompareSection::Run;
  std::string key;  // "virtual time", "relax (workloads/sor.cpp:40-61)", "Comp", "Wait barrier", "SyncDelay"
  std::optional<std::int64_t> a_ps;  // nullopt: the run has no such scope (or wait kind)
  std::optional<std::int64_t> b_ps;

  // B - A (a missing side counts as 0).
  [[nodiscard]] std::int64_t diff_ps() const { return b_ps.value_or(0) - a_ps.value_or(0); }
  // B / A; nullopt when a side is missing or A is 0.
  [[nodiscard]] std::optional<double> ratio() const;
};

struct Comparison {
  std::string a_path;
  std::string b_path;
  RunInfo a;
  RunInfo b;
  bool same_program = true;  // the same workload name
  std::size_t scopes_matched = 0;
  std::size_t scopes_only_a = 0;
  std::size_t scopes_only_b = 0;
  // What the reader must know first: different programs, node counts, parameters, partial runs.
  std::vector<std::string> notes;
  // Run totals, then scopes (by the larger side, largest first), the 7 categories, the waits by
  // kind and operation (largest first), the 9 wait parts.
  std::vector<CompareRow> rows;
};

// Scopes: inclusive PP time summed over the nodes. Categories: time summed over nodes and scopes.
// Waits and parts: from the wait summary (complete even when instances were capped).
Comparison compare_runs(const ComparedRun& a, const ComparedRun& b);

enum class CompareFormat { Text, Csv, Json };
// Text: a header naming both runs, the notes, a table with human units. CSV: one header row, raw
// picoseconds, empty fields for what a run lacks. JSON: {"a": run, "b": run, "notes": [...],
// "rows": [...]}.
std::string render_comparison(const Comparison& c, CompareFormat format);

}  // namespace ncp2::carnival
