// A point's command line and files (sweep/point_command.hpp).
#include "sweep/point_command.hpp"

#include <fmt/format.h>

namespace ncp2::sweep {

PointFiles point_files(const Point& point) {
  const std::string base = fmt::format("{}/{}", kPointsFolder, point.name);
  return {base + ".db", base + ".json", base + ".log"};
}

std::vector<std::string> point_command(const std::string& ncp2, const SweepSpec& spec, const Point& point,
                                       const std::string& out_dir) {
  const PointFiles files = point_files(point);
  std::vector<std::string> argv = {
      ncp2, "run", spec.target, "--nodes", std::to_string(point.nodes), "--machine", point.machine};
  for (const Setting& s : point.settings)
    argv.insert(argv.end(), {"--set", fmt::format("{}={}", s.key, s.value)});
  argv.insert(argv.end(), spec.run_options.begin(), spec.run_options.end());
  // No history: a sweep's points are its own record, and concurrent points would contend for it.
  argv.insert(argv.end(),
              {"--db", fmt::format("{}/{}", out_dir, files.db), "--stats-json",
               fmt::format("{}/{}", out_dir, files.stats_json), "--no-history", "--progress", "never"});
  if (!spec.program_args.empty()) {
    argv.emplace_back("--");
    argv.insert(argv.end(), spec.program_args.begin(), spec.program_args.end());
  }
  return argv;
}

}  // namespace ncp2::sweep
