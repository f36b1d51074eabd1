#pragma once
// CARNIVAL's data: what one run produces and the store keeps (SPEC §3). The instrumentation
// (carnival/profiler.*) fills a RunData; carnival/store.* writes and reads it as SQLite
// (docs/schema.md); reports and the GUI read it back.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "carnival/wait_parts.hpp"

namespace ncp2::carnival {

// Where time goes. Every picosecond of a PP is in exactly one of the first four; of a CP in one
// of the last three. Defined once, with their presentation, in kCategoryTable below.
enum class Category : std::uint8_t { Comp, Extra, Wait, Prste, CPComp, CPWait, CPIdle };
inline constexpr std::size_t kCategories = 7;

struct CategoryDef {
  Category category;
  std::string_view name;      // the profile's and timeline's `category` value
  std::string_view resource;  // "PP" or "CP"
  std::string_view color;     // "#rrggbb": Okabe-Ito, distinguishable with colour-vision deficiencies
  std::string_view glyph;     // in text bars
  std::string_view description;
};
// Adding a category: the enum value and its row here; the schema's CHECK lists, the categories
// table, reports and the GUI follow.
inline constexpr std::array<CategoryDef, kCategories> kCategoryTable = {{
    {Category::Comp, "Comp", "PP", "#0072B2", "█", "application computation on the main processor"},
    {Category::Extra, "Extra", "PP", "#E69F00", "▓", "coherence work: time executing TreadMarks code"},
    {Category::Wait, "Wait", "PP", "#D55E00", "▒",
     "waiting for requests to be answered or for other processors"},
    {Category::Prste, "Prste", "PP", "#CC79A7", "░",
     "servicing requests of remote nodes or of the local CP, entered by interrupt"},
    {Category::CPComp, "CPComp", "CP", "#009E73", "█",
     "protocol controller executing commands from its queue"},
    {Category::CPWait, "CPWait", "CP", "#F0E442", "▒", "protocol controller waiting for its own PP"},
    {Category::CPIdle, "CPIdle", "CP", "#BBBBBB", "░", "protocol controller with no command to process"},
}};
static_assert([] {
  for (std::size_t i = 0; i < kCategories; ++i)
    if (static_cast<std::size_t>(kCategoryTable[i].category) != i) return false;
  return true;
}());

constexpr const CategoryDef& info(Category c) { return kCategoryTable[static_cast<std::size_t>(c)]; }
constexpr std::string_view to_string(Category c) { return info(c).name; }
std::optional<Category> category_from_string(std::string_view name);
inline bool is_pp_category(Category c) { return info(c).resource == "PP"; }

// The parts of one wait: the 8 categories of the paper's Table 1 plus synchronization delay
// (dsm/wait_parts.hpp), shown as carnival/wait_parts.hpp's kWaitPartTable says (name, SQL column,
// colour, glyph, description).

// One category for the `categories` table: colours are data, one colour-blind-safe palette.
struct CategoryInfo {
  std::string name;
  std::string resource;  // "PP", "CP" or "WAIT"
  std::string color;     // "#rrggbb"
  std::string description;
};
// The 7 profile categories, then the 9 wait parts, in enum order (from the two tables).
const std::vector<CategoryInfo>& category_catalogue();

struct RunInfo {
  std::string workload;
  std::string machine;  // "ncp2" | "treadmarks"
  int nodes = 0;
  std::string status = "complete";   // "complete" | "incomplete" | "failed" | "deadlock"
  std::int64_t virtual_time_ps = 0;  // end of the timed region (the exit barrier)
  std::string config;                // effective configuration, TOML
  std::string parameters;            // workload parameters, JSON object text
  std::uint64_t seed = 0;
  std::string started_at;  // ISO 8601, UTC
  double wall_seconds = 0;
  bool verified = false;
  std::string message;  // verification verdict or failure diagnosis
};

struct NodeRow {
  int node = 0;
  std::int64_t finish_ps = 0;  // end of the node's last PP activity in the timed region
};

struct SourceFile {
  std::string file;  // as recorded by the scopes (relative path)
  std::string text;
};

struct Scope {
  std::uint32_t id = 0;      // 0 is the whole program
  std::int64_t parent = -1;  // -1 for scope 0
  std::string name;
  std::string kind;  // "program", "function", "loop", "phase", "block", "verify"
  std::string file;
  int begin_line = 0;
  int end_line = 0;
};

// Time accumulated by node x scope x category x operation ("none" inside application code).
struct ProfileCell {
  int node = 0;
  std::uint32_t scope = 0;
  Category category = Category::Comp;
  std::string operation;  // lrc::to_string(Operation): the protocol operation ("none" in application code)
  std::int64_t time_ps = 0;
  std::uint64_t count = 0;  // stretches accumulated
};

// One wait instance with its characterization (components sum exactly to duration_ps).
struct WaitRow {
  std::uint64_t id = 0;
  int node = 0;
  std::uint32_t scope = 0;
  std::string operation;
  std::string kind = "Wait";  // "Wait" (a PP) | "CPWait" (a CP waiting for its PP)
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = 0;
  std::array<std::int64_t, kWaitParts> parts{};  // by WaitPart
  int cause_node = -1;                           // with SyncDelay: who made this one wait
  std::int64_t cause_scope = -1;                 // and in which scope it was
  std::uint64_t object = 0;                      // page, lock or barrier id
  int remote_node = -1;  // the node that served the request (home, writer, manager, holder)
};

// One stretch of a processor's time, for timelines (Chrome/Perfetto trace, GUI). Optional and
// capped: the profile and the waits do not depend on it.
struct Segment {
  int node = 0;
  bool cp = false;  // the node's CP (else its PP)
  Category category = Category::Comp;
  std::string operation;
  std::uint32_t scope = 0;
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
};

// Always complete, even when instance rows are capped.
struct WaitSummary {
  int node = 0;
  std::uint32_t scope = 0;
  std::string operation;
  std::string kind = "Wait";
  std::uint64_t count = 0;
  std::int64_t total_ps = 0;
  std::array<std::int64_t, kWaitParts> parts{};
};

// One side of a data race (docs/schema.md, table races).
struct RaceAccess {
  int node = 0;
  bool writes = false;  // else a read
  std::string file;     // source file as the scopes record it; "" when unknown
  int line = 0;         // 0 when unknown
  std::uint32_t scope = 0;
  std::uint32_t interval = 0;              // the node's interval (segment between synchronizations), from 1
  std::vector<std::uint32_t> vector_time;  // the node's vector time in that interval
  friend bool operator==(const RaceAccess&, const RaceAccess&) = default;
};

// Two accesses of different nodes to overlapping bytes, at least one a write, not ordered by
// happens-before (--detect-races). Identical pairs (same nodes, sites and kinds) are one row.
struct RaceRow {
  std::uint32_t id = 0;                  // 1, 2, ... in the order found
  std::string region;                    // the shared allocation's name
  std::uint64_t offset = 0;              // first byte both touched, from the allocation's start
  std::optional<std::uint64_t> address;  // that byte's address in the program (a Tmk program)
  std::uint64_t occurrences = 1;         // pairs of intervals found racing at these sites
  RaceAccess first;                      // the lower node
  RaceAccess second;
  friend bool operator==(const RaceRow&, const RaceRow&) = default;
};

// One of a node's protocol counts (lrc::kCounterTable names them): the same for an emulated and a
// real run of a program whose synchronization order is fixed.
struct ProtocolCount {
  int node = 0;
  std::string counter;
  std::uint64_t value = 0;
  bool operator==(const ProtocolCount&) const = default;
};

struct RunData {
  RunInfo run;
  std::vector<NodeRow> nodes;
  std::vector<SourceFile> sources;
  std::vector<Scope> scopes;
  std::vector<ProfileCell> profile;
  std::vector<WaitRow> waits;  // possibly capped (see waits_dropped)
  std::vector<WaitSummary> wait_summary;
  std::uint64_t waits_dropped = 0;  // instances not stored because of the cap
  std::vector<Segment> timeline;
  std::uint64_t timeline_dropped = 0;  // segments not stored because of the cap
  bool races_checked = false;          // the run detected data races (--detect-races); races below
  std::vector<RaceRow> races;
  std::vector<ProtocolCount> protocol_counts;  // by node, in lrc::kCounterTable's order
};

// Recomputes the summary from instance rows (used when rows are not capped, and by tests).
std::vector<WaitSummary> summarize(const std::vector<WaitRow>& waits);

// A row of the CPWait Map: where waiting time comes from, summed over the nodes.
struct CPWaitMapRow {
  std::uint32_t scope = 0;
  std::string kind;  // "Wait" | "CPWait"
  std::string operation;
  std::uint64_t count = 0;
  std::int64_t total_ps = 0;
  std::array<std::int64_t, kWaitParts> parts{};
};
// The CPWait Map of a wait summary (of one node when `node` >= 0): one row per (scope, kind,
// operation), largest total first, ties in that key's order. Used by `ncp2 report` and the GUI.
std::vector<CPWaitMapRow> cpwait_map(std::span<const WaitSummary> summary, int node = -1);

}  // namespace ncp2::carnival
