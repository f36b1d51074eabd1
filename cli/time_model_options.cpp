#include "cli/time_model_options.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "host_timing/calibration.hpp"
#include "host_timing/tick_clock.hpp"
#include "host_timing/time_source.hpp"

namespace ncp2::cli {

void add_time_model_options(CLI::App& app, TimeModelOptions& o) {
  app.add_option("--time-model", o.model,
                 "deterministic: computation is what the workload annotates (compute, charge); measured: the "
                 "workload's native code between DSM calls is timed on this host and scaled (annotations "
                 "ignored; see docs/timing.md)")
      ->check(CLI::IsMember({"deterministic", "measured"}))
      ->capture_default_str();
  auto* target =
      app.add_option("--target-mhz", o.target_mhz,
                     "measured model: run the host's cycles at this target clock (default: pp.clock_mhz)")
          ->check(CLI::Range(1e-3, 1e6));
  auto* scale = app.add_option("--scale", o.scale,
                               "measured model: target seconds per host second, instead of --target-mhz")
                    ->check(CLI::Range(1e-9, 1e9));
  target->excludes(scale);
  scale->excludes(target);
}

TimeModelSetup make_time_model(const TimeModelOptions& o, const dsm::SystemConfig& config) {
  TimeModelSetup setup;
  if (o.model != "measured") {
    if (o.target_mhz || o.scale)
      throw std::invalid_argument("--target-mhz and --scale need --time-model measured");
    return setup;
  }
  const timing::TscInfo tsc = timing::detect_tsc();
  const timing::ClockChoice choice = timing::choose_clock(tsc);
  // The host's cycle rate: the TSC's, calibrated briefly (the TSC counts at the nominal clock).
  double host_hz = 0;
  std::string calibration;
  if (timing::rdtsc_unavailable_reason(tsc).empty()) {
    const timing::CalibrationResult c = timing::calibrate_host_tsc(0.05);
    host_hz = c.frequency_hz;
    calibration =
        fmt::format("calibrated over {:.0f} ms, bound {:.2f} ppm", c.interval_s * 1e3, c.error_bound_ppm);
  }
  const timing::TickClock clock =
      choice.use_tsc ? timing::TickClock::tsc(host_hz) : timing::TickClock::monotonic_raw();
  double scale = 0;
  std::string how;
  if (o.scale) {
    scale = *o.scale;
    how = fmt::format("scale {} (explicit)", scale);
  } else {
    if (host_hz <= 0)
      throw std::invalid_argument(
          fmt::format("the host's clock rate is unknown ({}): give --scale instead of "
                      "--target-mhz",
                      timing::rdtsc_unavailable_reason(tsc)));
    const double target = o.target_mhz.value_or(config.pp.clock_mhz);
    scale = timing::MeasuredTimeModel::scale_for_target(host_hz, target);
    how = fmt::format("host {:.1f} MHz -> target {} MHz: scale {:.3f}", host_hz / 1e6, target, scale);
  }
  const std::uint64_t probe = timing::MeasuredTimeModel::measure_probe_ticks(clock);
  setup.meter = std::make_unique<timing::MeasuredTimeModel>(clock, config.machine.nodes, scale, probe);
  setup.description =
      fmt::format("measured with {}{}; {}; probe cost {} ticks ({:.1f} ns) subtracted per stretch",
                  clock.describe(), calibration.empty() ? "" : " (" + calibration + ")", how, probe,
                  clock.to_ns(static_cast<double>(probe)));
  if (!choice.use_tsc) setup.description += fmt::format("\n            note: {}", choice.reason);
  return setup;
}

void print_measured_summary(const timing::MeasuredTimeModel& meter) {
  const timing::MeasuredNodeStats t = meter.totals();
  fmt::print(
      "measured  {} stretches of native workload code, {:.3f} ms on this host ({:.3f} ms of it probe cost, "
      "subtracted) -> {} of target computation\n",
      t.stretches, meter.clock().to_ns(static_cast<double>(t.host_ticks)) / 1e6,
      meter.clock().to_ns(static_cast<double>(t.subtracted_ticks)) / 1e6, emu::format_duration(t.charged));
}

}  // namespace ncp2::cli
