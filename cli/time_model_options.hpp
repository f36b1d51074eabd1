#pragma once
// `ncp2 run --time-model deterministic|measured [--target-mhz M | --scale F]` (docs/timing.md).
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "dsm/config.hpp"
#include "host_timing/measured_time.hpp"

namespace ncp2::cli {

struct TimeModelOptions {
  std::string model = "deterministic";
  std::optional<double> target_mhz;
  std::optional<double> scale;
};

void add_time_model_options(CLI::App& app, TimeModelOptions& options);

// The measured model's meter (null for the deterministic model) and a line saying how it scales.
struct TimeModelSetup {
  std::unique_ptr<timing::MeasuredTimeModel> meter;
  std::string description;
};
// Calibrates the host clock briefly when the measured model is asked for. Throws
// std::invalid_argument for options that do not fit together or cannot be honoured here.
[[nodiscard]] TimeModelSetup make_time_model(const TimeModelOptions& options,
                                             const dsm::SystemConfig& config);

// One line on what the measured model charged in the run.
void print_measured_summary(const timing::MeasuredTimeModel& meter);

}  // namespace ncp2::cli
