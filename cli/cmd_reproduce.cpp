// `ncp2 reproduce usenix94|sc95|sbacpad96|basic-costs`: the published figures beside the emulated ones
// (run/reproduce.hpp, docs/results.md): published value, emulated value, their ratio and the
// published value's source, per row; text or JSON.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "emulator/config.hpp"
#include "run/reproduce.hpp"
#include "workloads/workload.hpp"

namespace ncp2::cli {

namespace {

namespace fs = std::filesystem;

struct ReproduceCommand {
  std::string table;
  bool json = false;
  std::string nodes;  // "4,8,16"; empty: each row's own
  std::string configs;
};

// The presets: installed next to the binary (share/ncp2/configs), else the source tree's.
std::string default_configs() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = self.parent_path().parent_path() / "share" / "ncp2" / "configs";
  if (!ec && fs::is_directory(installed, ec)) return installed.string();
  return NCP2_CONFIGS_DIR;
}

std::vector<int> parse_nodes(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const long n = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 1 || n > 4096)
      throw std::invalid_argument(
          fmt::format("--nodes {}: give node counts from 1 to 4096, comma-separated", list));
    out.push_back(static_cast<int>(n));
  }
  return out;
}

std::string value_text(const run::PublishedRow& row, double v) {
  switch (row.quantity) {
    case run::Quantity::Gain:
      return fmt::format("{:+.0f} %", v * 100);
    case run::Quantity::Microseconds:
      return fmt::format("{:.0f} us", v);
    case run::Quantity::Speedup:
      break;
  }
  return fmt::format("{:.2f}", v);
}

const char* quantity_name(run::Quantity q) {
  switch (q) {
    case run::Quantity::Gain:
      return "gain";
    case run::Quantity::Microseconds:
      return "microseconds";
    case run::Quantity::Speedup:
      break;
  }
  return "speedup";
}

std::string workload_text(const run::ReproducedRow& r) {
  std::string name = r.row.workload;
  for (const auto& p : r.row.params) name += " " + p;
  return name;
}

// The published sequential times beside the emulated one-node times (the testbed's computation
// model, independent of any speedup).
void print_sequential(const std::vector<run::ReproducedRow>& rows) {
  bool header = false;
  std::size_t width = 26;
  for (const auto& r : rows) width = std::max(width, workload_text(r).size());
  for (const auto& r : rows) {
    if (r.row.published_sequential_s <= 0) continue;
    if (!header)
      fmt::print("\n{:<{}} {:>10} {:>10} {:>7}\n", "sequential time (one node)", width, "published",
                 "emulated", "ratio");
    header = true;
    fmt::print("{:<{}} {:>8.0f} s {:>8.1f} s {:>7}\n", workload_text(r), width, r.row.published_sequential_s,
               r.sequential_s.value_or(0),
               r.sequential_s ? fmt::format("{:.2f}", *r.sequential_s / r.row.published_sequential_s) : "-");
  }
}

void print_text(const std::vector<run::ReproducedRow>& rows) {
  std::size_t width = 28;  // the workload column fits its longest name (parameters included)
  for (const auto& r : rows) width = std::max(width, workload_text(r).size());
  fmt::print("{:<10} {:<9} {:<{}} {:<11} {:>5} {:>10} {:>10} {:>6}  {:<10}  source\n", "paper", "network",
             "workload", width, "machine", "nodes", "published", "emulated", "ratio", "provenance");
  int within = 0;
  int with_value = 0;
  for (const auto& r : rows) {
    const std::string name = workload_text(r);
    const std::string machine = r.row.quantity == run::Quantity::Gain ? "ncp2/tm" : r.row.machine;
    fmt::print("{:<10} {:<9} {:<{}} {:<11} {:>5} {:>10} {:>10} {:>6}  {:<10}  {}\n", r.row.paper,
               r.row.network, name, width, machine, r.nodes, value_text(r.row, r.row.published),
               r.emulated ? value_text(r.row, *r.emulated) : "-",
               r.ratio() ? fmt::format("{:.2f}", *r.ratio()) : "-", run::provenance_name(r.row.provenance),
               r.problem.empty() ? r.row.cite : r.problem);
    if (r.ratio()) {
      ++with_value;
      if (std::abs(*r.ratio() - 1) <= (r.row.quantity == run::Quantity::Microseconds ? 0.10 : 0.15)) ++within;
    }
  }
  const bool costs = !rows.empty() && rows.front().row.quantity == run::Quantity::Microseconds;
  const double tolerance = costs ? 0.10 : 0.15;
  fmt::print("\nwithin ±{:.0f} % of the published value: {} of {}\n", tolerance * 100, within, with_value);
  print_sequential(rows);
  // Where each kind of label was read, once (the JSON has it per row).
  std::map<std::string, std::string> rows_read_at;  // where -> "label: workloads"
  for (const auto& r : rows) {
    std::string& line = rows_read_at[r.row.read_at];
    line += line.empty() ? fmt::format("{}: {}", run::provenance_name(r.row.provenance), r.row.workload)
                         : fmt::format(", {}", r.row.workload);
  }
  fmt::print(
      "provenance (paper: read in a stored copy of the paper; secondary: only in a source citing it; "
      "unverified: in no stored source):\n");
  for (const auto& [where, line] : rows_read_at) fmt::print("  {}\n    {}\n", line, where);
}

void print_json(const std::vector<run::ReproducedRow>& rows) {
  nlohmann::json out{{"rows", nlohmann::json::array()}};
  for (const auto& r : rows) {
    out["rows"].push_back(
        {{"paper", r.row.paper},
         {"network", r.row.network},
         {"workload", r.row.workload},
         {"parameters", r.row.params},
         {"machine", r.row.machine},
         {"quantity", quantity_name(r.row.quantity)},
         {"nodes", r.nodes},
         {"published", r.row.published},
         {"emulated", r.emulated ? nlohmann::json(*r.emulated) : nlohmann::json()},
         {"ratio", r.ratio() ? nlohmann::json(*r.ratio()) : nlohmann::json()},
         {"source", r.row.source},
         {"provenance", run::provenance_name(r.row.provenance)},
         {"sequential_s", r.sequential_s ? nlohmann::json(*r.sequential_s) : nlohmann::json()},
         {"published_sequential_s",
          r.row.published_sequential_s > 0 ? nlohmann::json(r.row.published_sequential_s) : nlohmann::json()},
         {"read_at", r.row.read_at},
         {"problem", r.problem}});
  }
  fmt::print("{}\n", out.dump(2));
}

int reproduce(const ReproduceCommand& o) {
  run::ReproduceOptions options;
  options.configs_dir = o.configs.empty() ? default_configs() : o.configs;
  try {
    if (!o.nodes.empty()) options.nodes = parse_nodes(o.nodes);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  const bool terminal = isatty(STDERR_FILENO) != 0;
  options.progress = [terminal](std::string_view what) {
    if (terminal) fmt::print(stderr, "\r\033[Krunning {}", what);
  };
  std::vector<run::ReproducedRow> rows;
  try {
    rows = run::reproduce(o.table, options);
  } catch (const workloads::WorkloadError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  } catch (const emu::ConfigError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  if (terminal) fmt::print(stderr, "\r\033[K");
  o.json ? print_json(rows) : print_text(rows);
  return kExitOk;
}

}  // namespace

Subcommand add_reproduce_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Run a published table's experiments on their period preset and print published value, emulated value, "
      "ratio and source per row (docs/results.md)");
  auto o = std::make_shared<ReproduceCommand>();
  cmd->add_option("table", o->table,
                  "usenix94, sc95, sbacpad96, or basic-costs (USENIX'94's lock, barrier, page, twin and diff "
                  "costs against the same operations on the ATM preset)")
      ->required()
      ->check(CLI::IsMember(run::reproducible_tables()));
  cmd->add_flag(
      "--json", o->json,
      R"(one JSON object: {"rows": [{"paper", "network", "workload", "machine", "nodes", "published", )"
      R"("emulated", "ratio", "source", "provenance", "read_at", ...}]}; a gain is a fraction (0.52 = 52 %))");
  cmd->add_option("--nodes", o->nodes,
                  "node counts instead of each row's own, e.g. 4,8,16 (not for basic-costs: 8 processors)")
      ->type_name("LIST");
  cmd->add_option("--configs", o->configs,
                  "the directory of the presets (default: the installed or source tree's)")
      ->type_name("DIR");
  return {cmd, [o] { return reproduce(*o); }};
}

}  // namespace ncp2::cli
