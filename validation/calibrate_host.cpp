// This host's calibration (validation/calibrate_host.hpp).
#include "validation/calibrate_host.hpp"

#include <sys/utsname.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "carnival/utc_time.hpp"

namespace ncp2::validation {

namespace fs = std::filesystem;

std::string host_name() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.nodename) : std::string("an unnamed host");
}

std::string calibrate_command_line(const CalibrateOptions& o) {
  std::string line = fmt::format("ncp2 calibrate --machine real --nodes {} --rounds {}", o.nodes, o.rounds);
  if (!o.hostfile.empty()) line += " --hostfile " + o.hostfile;
  return line;
}

HostCalibration calibrate_this_host(const CalibrateOptions& options) {
  std::string dir = (fs::temp_directory_path() / "ncp2-calibrate-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr)
    throw std::runtime_error(
        fmt::format("cannot make a temporary directory in {}", fs::temp_directory_path().string()));
  CalibrateOptions o = options;
  o.work_dir = dir;
  std::vector<MeasuredCost> measured, loaded;
  try {
    measured = measure_real_basic_costs(o);
    if (measures_load(o.nodes)) loaded = measure_real_basic_costs(o, true);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  HostCalibration h;
  h.calibration =
      fit_calibration(std::move(measured), o.nodes, host_name(), carnival::utc_now_iso(), std::move(loaded));
  h.command_line = calibrate_command_line(o);
  h.toml = calibration_toml(h.calibration, h.command_line);
  return h;
}

}  // namespace ncp2::validation
