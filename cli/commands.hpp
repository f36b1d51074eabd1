#pragma once
// Registration of the subcommands. Each returns the callback that runs it (exit code).
#include <functional>

#include <CLI/CLI.hpp>

namespace ncp2::cli {

using Runner = std::function<int()>;
struct Subcommand {
  CLI::App* app;
  Runner run;
};

Subcommand add_timing_command(CLI::App& app);
Subcommand add_clocksync_command(CLI::App& app);
Subcommand add_config_command(CLI::App& app);
Subcommand add_demo_network_command(CLI::App& app);
Subcommand add_workloads_command(CLI::App& app);
Subcommand add_run_command(CLI::App& app);
Subcommand add_report_command(CLI::App& app);
Subcommand add_export_trace_command(CLI::App& app);
Subcommand add_compare_command(CLI::App& app);
Subcommand add_counters_command(CLI::App& app);
Subcommand add_schedule_command(CLI::App& app);
Subcommand add_reproduce_command(CLI::App& app);
Subcommand add_calibrate_command(CLI::App& app);
Subcommand add_validate_command(CLI::App& app);
Subcommand add_sweep_command(CLI::App& app);

}  // namespace ncp2::cli
