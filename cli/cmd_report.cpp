// `ncp2 report FILE`: the views of a stored run (scope tree, nodes, CPWait Map, causes of
// synchronization delay, largest waits) as text, Markdown, CSV or JSON.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "carnival/report.hpp"
#include "carnival/run_reader.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"

namespace ncp2::cli {

namespace {

struct ReportCommand {
  std::string file;
  std::vector<std::string> views;
  std::string format = "text";
  std::size_t top = 20;
};

int report(const ReportCommand& o) {
  carnival::ReportOptions options;
  options.views.clear();
  for (const auto& name : o.views) {
    if (name == "all") {
      options.views = carnival::all_views();
      break;
    }
    options.views.push_back(*carnival::view_from_string(name));  // checked by CLI11
  }
  if (options.views.empty()) options.views = carnival::all_views();
  options.format = *carnival::format_from_string(o.format);
  options.top = o.top;

  carnival::RunData data;
  try {
    data = carnival::read_run(o.file);
  } catch (const carnival::StoreError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  if (data.run.status != "complete" &&
      (options.format == carnival::ReportFormat::Csv || options.format == carnival::ReportFormat::Json))
    fmt::print(stderr, "ncp2: warning: {} holds a run with status '{}': the results are partial\n", o.file,
               data.run.status);
  const std::string text = carnival::render_report(data, options);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace

Subcommand add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("report",
                                 "Report on a run stored by `ncp2 run --db`: scope tree, nodes, CPWait Map, "
                                 "causes of synchronization delay, largest waits, data races");
  auto o = std::make_shared<ReportCommand>();
  cmd->add_option("file", o->file, "the run's database (SQLite, docs/schema.md)")
      ->required()
      ->type_name("FILE");
  cmd->add_option(
         "--view", o->views,
         "what to show (repeatable or comma-separated): scopes, nodes, cpwait, causes, waits, races, "
         "all (default: all; races only for runs with --detect-races)")
      ->delimiter(',')
      ->check(CLI::IsMember({"scopes", "nodes", "cpwait", "causes", "waits", "races", "all"}))
      ->type_name("VIEW");
  cmd->add_option("--format", o->format, "text (Unicode bars), markdown, csv (raw picoseconds) or json")
      ->check(CLI::IsMember({"text", "markdown", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("--top", o->top,
                  "rows of the scopes (the hottest), cpwait, causes, waits and races views (0: all)")
      ->check(whole_number(0, 1'000'000'000))
      ->capture_default_str();
  return {cmd, [o] { return report(*o); }};
}

}  // namespace ncp2::cli
