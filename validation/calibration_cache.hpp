#pragma once
// The calibration `ncp2 validate` uses without --preset: this host's, made once (the preset
// `ncp2 calibrate --machine real` writes) and kept in a directory, one per host and node count,
// with a record of what it was made on and by. It is made again when asked, when the host, the
// build, the node count or the launch differ, when it has fewer rounds than asked, and when it
// cannot be read — said, never silently used (docs/validation.md).
#include <functional>
#include <optional>
#include <string>

#include "validation/calibrate.hpp"
#include "validation/host_identity.hpp"

namespace ncp2::validation {

// The record's format. Raise it when what a calibration measures or how it is kept changes:
// every kept calibration is then made again. 2: the barriers after writes (dsm.close_per_page).
// 3: lock-burst (compared, not fitted: the preset's head lists it) and pp.separate_server.
// 4: on 3 nodes or more, the loaded basic costs and the host's load factor (load_factor.hpp).
// 5: the busy requests' requester computes until its request (pp.busy_handler_prompt_after).
inline constexpr int kCalibrationCacheFormat = 5;

// $NCP2_CALIBRATION_CACHE, else $XDG_CACHE_HOME/ncp2/calibrations, else
// ~/.cache/ncp2/calibrations. Throws std::runtime_error when there is no home to put it in.
[[nodiscard]] std::string calibration_cache_dir();
// Creates `dir` and writes a file in it (then removes it): what is wrong, in our words, or nullopt.
[[nodiscard]] std::optional<std::string> cache_dir_problem(const std::string& dir);

// Whether `path` can be used as a preset (read over the treadmarks machine and validated, as
// `ncp2 run --config` reads it): what is wrong, or nullopt.
[[nodiscard]] std::optional<std::string> preset_problem(const std::string& path);

// The calibration a validation used, as the comparison names it.
struct UsedCalibration {
  std::string path;    // the preset
  std::string record;  // its record (JSON)
  std::string date;    // when it was made (ISO 8601, UTC)
  std::string host;
  int nodes = 0;
  int rounds = 0;
  double took_s = 0;    // how long calibrating took
  bool reused = false;  // false: made by this validation
};

struct CacheRequest {
  std::string dir;
  CalibrateOptions calibrate;  // nodes, hostfile, mpirun args; rounds: the fewest a kept one may have
  HostIdentity host;
  std::string build;  // build_identity
  bool recalibrate = false;
};

// Makes a calibration: the preset's text (calibrate_this_host's, on real processes; tests stub it).
using Calibrator = std::function<std::string(const CalibrateOptions&)>;
[[nodiscard]] Calibrator host_calibrator();

struct CacheMessages {
  std::function<void(const std::string&)> say;   // what is done (calibrating, reused, made)
  std::function<void(const std::string&)> warn;  // a kept calibration that cannot be read
};

// The kept calibration when it is usable, else a new one made by `calibrate` and kept (written
// atomically: a reader never sees half a preset). Throws std::runtime_error when calibrating or
// keeping fails (an unusable kept calibration is no error: it is said and made again).
[[nodiscard]] UsedCalibration cached_calibration(const CacheRequest& request, const Calibrator& calibrate,
                                                 const CacheMessages& messages);

// Seconds a calibration of `rounds` on `nodes` is expected to take, from an earlier one's (on as many
// nodes) when known.
[[nodiscard]] double calibration_estimate_s(int rounds, int nodes, std::optional<double> earlier_s,
                                            int earlier_rounds);

}  // namespace ncp2::validation
