#pragma once
// A sweep's grid (`ncp2 sweep`, docs/sweeps.md): the cartesian product of node counts, machines and
// each --set key's values, every point named for its files. Pure: no file is touched except the
// ones grid_hash reads.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/sweep_reader.hpp"  // Setting: one row of the sweep database's point_settings

namespace ncp2::sweep {

// A grid that cannot be built as asked (an empty or repeated list, two points with one file name):
// the message is for the user; `ncp2 sweep` exits 2.
class GridError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One --set key and its values, in the order given.
struct SettingAxis {
  std::string key;
  std::vector<std::string> values;
};

// What a sweep runs: the grid, and what every point shares.
struct SweepSpec {
  std::string target;                     // a workload's name, or a program's absolute path
  std::vector<std::string> program_args;  // a program's arguments (after --)
  std::vector<int> nodes;                 // ascending
  std::vector<std::string> machines;      // "ncp2", "treadmarks"
  std::vector<SettingAxis> settings;      // in the order given
  // `ncp2 run` options every point gets (--config FILE, --param N=V, --seed S, --time-model ...),
  // as words of its command line.
  std::vector<std::string> run_options;
  // Files whose bytes are part of what the sweep is (the program, the --config file): rebuilt or
  // edited, they make another sweep.
  std::vector<std::string> content_files;
};

struct Point {
  std::string name;  // unique in its sweep, safe as a file name: "ncp2-n4-network.link_latency=200ns"
  std::string machine;
  int nodes = 0;
  std::vector<Setting> settings;  // one per axis of the spec, in its order
};

// "1,2,4" -> {"1","2","4"}. Throws GridError naming `option` for an empty list, an empty item or
// an item given twice.
std::vector<std::string> split_list(std::string_view text, std::string_view option);
// "KEY=V1,V2" -> its axis (split_list's checks on the values). Throws GridError.
SettingAxis parse_axis(std::string_view assignment);

// Every point: machines outermost, then the settings (the first axis slowest), then the node
// counts, so that a machine's and a setting's points follow one another from 1 node up. Throws
// GridError when the spec has no point or two points would share a file name.
std::vector<Point> expand_grid(const SweepSpec& spec);

// A point's --set values as 'k=v;k2=v2' ("" when none): the points table's `settings`.
std::string settings_text(const Point& point);

// The identity of a sweep: its target, arguments, grid, shared options and the bytes of its
// content files, whatever the order of the lists. 16 hex digits. Throws GridError when a content
// file cannot be read.
std::string grid_hash(const SweepSpec& spec);

}  // namespace ncp2::sweep
