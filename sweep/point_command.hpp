#pragma once
// A point is a command line that writes its files into the sweep's folder: `ncp2 run` of the
// target with the point's node count, machine and settings, its CARNIVAL database, statistics JSON
// and log in DIR/points/. The same words whether the point runs here (sweep/local_executor.hpp) or
// elsewhere (a batch system): paths are absolute, nothing depends on the working directory.
#include <string>
#include <vector>

#include "sweep/grid.hpp"

namespace ncp2::sweep {

// A point's files, relative to the sweep's folder.
struct PointFiles {
  std::string db;          // points/<name>.db: the run's CARNIVAL database
  std::string stats_json;  // points/<name>.json
  std::string log;         // points/<name>.log: the command's standard output and error
};
PointFiles point_files(const Point& point);

// The folder of the points' files, relative to the sweep's folder.
inline constexpr const char* kPointsFolder = "points";

// The command line of `point`: `ncp2` is the executable to run (this very binary), `out_dir` the
// sweep's folder (absolute).
std::vector<std::string> point_command(const std::string& ncp2, const SweepSpec& spec, const Point& point,
                                       const std::string& out_dir);

}  // namespace ncp2::sweep
