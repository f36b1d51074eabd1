#pragma once
// What a point left in the sweep's folder, read back: its status, virtual time, categories and
// waits from its CARNIVAL database (carnival/run_reader.hpp), its message from the database or the
// last lines of its log. Separate from how the point ran: what the executor knows of the run
// (sweep/executor.hpp) only refines the verdict when the files cannot tell.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/executor.hpp"
#include "sweep/grid.hpp"
#include "sweep/sweep_reader.hpp"  // PointStatus, CategoryTime, WaitTime: the sweep database's words

namespace ncp2::sweep {

// What a point gave, as the sweep database stores it: the categories (Comp, Extra, Wait, Prste,
// CPComp, CPWait, CPIdle) summed over the nodes; the PPs' waits by what they waited for (page fault,
// diff fetch, lock acquire, barrier, ...), summed over the nodes and scopes.
struct PointRecord {
  PointStatus status = PointStatus::NotRun;
  std::string message;
  std::optional<std::int64_t> virtual_time_ps;
  std::optional<double> speedup;  // set by compute_speedups
  std::optional<bool> verified;
  std::optional<double> wall_s;
  std::vector<CategoryTime> categories;  // in the catalogue's order, every category
  std::vector<WaitTime> waits;           // largest first
};

// A point whose run need not run again: its database holds a complete run and its statistics JSON
// exists. `out_dir` is the sweep's folder.
bool point_complete(const std::string& out_dir, const Point& point);

// Reads the point's files. `run` is what the executor saw of it this time (none when it did not
// run now: a complete point of an earlier invocation, or one not started).
PointRecord gather_point(const std::string& out_dir, const Point& point, const std::optional<PointRun>& run);

// Each done point's speedup over the done 1-node point of the same machine and settings (none
// when there is no such point).
void compute_speedups(const std::vector<Point>& points, std::vector<PointRecord>& records);

}  // namespace ncp2::sweep
