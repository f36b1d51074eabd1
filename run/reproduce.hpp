#pragma once
// `ncp2 reproduce TABLE`: the published figures of the source papers beside the emulated values of
// the same experiment (issue 20, docs/results.md). Each row names the paper, the network, the
// workload with the parameters of the published variant, the machine preset it runs on
// (configs/*.toml), the published value and where it was published. The emulated value is a
// speedup, T(1 node) / T(N nodes) of the timed region, or the NCP2 gain, T(treadmarks) / T(ncp2)
// - 1, both on the same preset and inputs, or a basic operation's cost in microseconds
// (run/basic_costs.hpp; the row's `workload` names the operation).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ncp2::run {

enum class Quantity { Speedup, Gain, Microseconds };

// Where a published value was read (issue 34, docs/results.md "Provenance"): in a stored copy of
// the paper's text, only in another source that cites it, or nowhere (recalled; no stored copy
// found). Every published value the tool prints carries one.
enum class Provenance { Paper, Secondary, Unverified };
[[nodiscard]] std::string_view provenance_name(Provenance p);

struct PublishedRow {
  std::string paper;    // usenix94 | sc95 | sbacpad96
  std::string network;  // atm | ethernet | myrinet
  std::string workload;
  std::vector<std::string> params;  // NAME=VALUE over the `paper` preset
  std::string config;               // the machine preset, relative to the source tree's configs/
  std::string machine;              // treadmarks | ncp2 (Gain: the NCP2 side)
  int nodes = 8;
  Quantity quantity = Quantity::Speedup;
  double published = 0;  // a speedup, a gain as a fraction (0.52 = 52 %), or microseconds
  std::string source;    // where the published value comes from
  std::string cite;      // the same, short ("USENIX'94 abstract")
  Provenance provenance = Provenance::Unverified;
  std::string read_at;  // where the value (or its secondary source) was read; why unverified
  // A speedup's published sequential time on the same testbed, in seconds (0: not published or
  // not read); compared with the emulated one-node time, it tests the testbed's computation model
  // independently of any speedup.
  double published_sequential_s = 0;
};

// The rows of a table (usenix94, sc95, sbacpad96); empty for an unknown name.
[[nodiscard]] std::vector<PublishedRow> published_rows(std::string_view table);
[[nodiscard]] const std::vector<std::string>& reproducible_tables();

struct ReproducedRow {
  PublishedRow row;
  int nodes = 0;  // the row's node count, or the one asked for (--nodes)
  std::optional<double> emulated;
  std::optional<double> sequential_s;  // a speedup's emulated one-node time (its timed region)
  std::string problem;                 // why there is no value (a run failed, did not verify)
  [[nodiscard]] std::optional<double> ratio() const {
    if (!emulated || row.published == 0) return std::nullopt;
    return *emulated / row.published;
  }
};

struct ReproduceOptions {
  std::string configs_dir;                         // where the presets are (the source tree's configs/)
  std::vector<int> nodes;                          // empty: each row's own count
  std::function<void(std::string_view)> progress;  // one line per run (may be empty)
};

// Runs every row (each distinct run once). Throws WorkloadError for an unknown table, a missing
// preset, or a row the registry cannot run.
[[nodiscard]] std::vector<ReproducedRow> reproduce(std::string_view table, const ReproduceOptions& options);

}  // namespace ncp2::run
