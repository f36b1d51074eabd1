#pragma once
// A sweep's points as a table on the terminal, or as JSON or CSV for other tools (`ncp2 sweep`,
// --json, --csv): one row per point with its machine, nodes, settings, virtual time, speedup, top
// categories and status.
#include <string>

#include "sweep/sweep_run.hpp"

namespace ncp2::sweep {

enum class ReportFormat { Text, Json, Csv };

std::string render_points(const SweepOutcome& outcome, ReportFormat format);

// The closing lines: how many points are done, kept, failed (each named with its message) or not run.
std::string summary_text(const SweepOutcome& outcome);

}  // namespace ncp2::sweep
