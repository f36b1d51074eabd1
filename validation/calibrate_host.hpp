#pragma once
// This host's calibration, made one way for `ncp2 calibrate --machine real` and for the one
// `ncp2 validate` makes and keeps (validation/calibration_cache.hpp): the basic costs measured on
// real processes, the fit, the preset's text.
#include <string>

#include "validation/calibrate.hpp"

namespace ncp2::validation {

// The host's name (uname), as a calibration records it.
[[nodiscard]] std::string host_name();

// The command a calibration is said to be made by, in its preset's head: the same text for
// `ncp2 calibrate` and for a calibration `ncp2 validate` keeps.
[[nodiscard]] std::string calibrate_command_line(const CalibrateOptions& options);

struct HostCalibration {
  Calibration calibration;
  std::string command_line;
  std::string toml;  // the preset (`ncp2 calibrate -o FILE` writes it)
};

// Measures the basic costs on real processes (in a temporary directory of its own, removed
// after; options.work_dir is ignored), fits the preset to them and writes its text. Throws
// std::runtime_error saying what went wrong (measure_real_basic_costs).
[[nodiscard]] HostCalibration calibrate_this_host(const CalibrateOptions& options);

// The measurements a calibration kept (`ncp2 calibrate --json`'s file, or a kept calibration's
// record) fitted again with this build's model: after a change of the model, the preset it would
// have made of the same measurements, no new measurement taken (issue 43). The host, date and nodes
// are the measurement's. Throws std::runtime_error saying what is wrong with the file, in our words
// (unreadable, not JSON, not a calibration's, the busy requests' rounds missing).
[[nodiscard]] HostCalibration refit_calibration(const std::string& json_path);

}  // namespace ncp2::validation
