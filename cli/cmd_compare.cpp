// `ncp2 compare A.db B.db`: two stored runs side by side (carnival/compare.hpp): per scope, per
// category, per wait kind and operation, per wait part, with A, B, B-A and B/A.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "carnival/compare.hpp"
#include "carnival/store.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"

namespace ncp2::cli {

namespace {

struct CompareCommand {
  std::string a;
  std::string b;
  bool json = false;
  bool csv = false;
};

int compare(const CompareCommand& o) {
  if (o.json && o.csv) {
    fmt::print(stderr, "ncp2: compare: choose one of --json and --csv\n");
    return kExitUsage;
  }
  carnival::Comparison comparison;
  try {
    comparison = carnival::compare_runs(carnival::read_compared_run(o.a), carnival::read_compared_run(o.b));
  } catch (const carnival::StoreError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  const auto format = o.json  ? carnival::CompareFormat::Json
                      : o.csv ? carnival::CompareFormat::Csv
                              : carnival::CompareFormat::Text;
  // The notes are in the JSON and the text; a CSV reader sees them on stderr.
  if (format == carnival::CompareFormat::Csv)
    for (const auto& n : comparison.notes) fmt::print(stderr, "ncp2: note: {}\n", n);
  const std::string text = carnival::render_comparison(comparison, format);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace

Subcommand add_compare_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("compare",
                         "Compare two runs stored by `ncp2 run --db`: per scope, category, wait kind and "
                         "operation, wait part; A, B, B-A, B/A");
  auto o = std::make_shared<CompareCommand>();
  cmd->add_option("a", o->a, "the first run's database (A)")->required()->type_name("A.db");
  cmd->add_option("b", o->b, "the second run's database (B)")->required()->type_name("B.db");
  cmd->add_flag("--json", o->json, R"(one JSON object: {"a": run, "b": run, "notes": [...], "rows": [...]})");
  cmd->add_flag("--csv", o->csv, "CSV with raw picoseconds (notes on stderr)");
  return {cmd, [o] { return compare(*o); }};
}

}  // namespace ncp2::cli
