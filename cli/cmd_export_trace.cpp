// `ncp2 export-trace FILE OUT.json`: a stored run as Chrome trace-event JSON for Perfetto UI.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "carnival/output_paths.hpp"
#include "carnival/run_reader.hpp"
#include "carnival/trace_export.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"

namespace ncp2::cli {

namespace {

struct ExportCommand {
  std::string file;
  std::string out;
};

int export_trace(const ExportCommand& o) {
  try {
    carnival::check_output_file(o.out, "OUT");  // before reading a large run
  } catch (const carnival::OutputError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  carnival::RunData data;
  try {
    data = carnival::read_run(o.file);
  } catch (const carnival::StoreError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  if (data.run.status != "complete")
    fmt::print(stderr, "ncp2: warning: {} holds a run with status '{}': the trace is partial\n", o.file,
               data.run.status);
  try {
    const auto counts = carnival::export_trace(data, o.out);
    fmt::print(
        "{}: {} events ({} nodes, {} timeline slices, {} waits, {} flow events); open it in "
        "https://ui.perfetto.dev\n",
        o.out, counts.events(), counts.processes, counts.segments, counts.waits, counts.flows);
    if (data.timeline_dropped > 0)
      fmt::print(stderr, "ncp2: note: {} timeline segments were not stored (cap)\n", data.timeline_dropped);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

Subcommand add_export_trace_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("export-trace",
                         "Write a stored run as Chrome trace-event JSON (Perfetto UI, chrome://tracing): "
                         "a process per node, PP and CP threads, waits with flow arrows");
  auto o = std::make_shared<ExportCommand>();
  cmd->add_option("file", o->file, "the run's database (SQLite)")->required()->type_name("FILE");
  cmd->add_option("out", o->out, "the JSON file to write (atomically)")->required()->type_name("OUT.json");
  return {cmd, [o] { return export_trace(*o); }};
}

}  // namespace ncp2::cli
