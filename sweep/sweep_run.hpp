#pragma once
// A sweep from its grid to its database (`ncp2 sweep`, docs/sweeps.md): the folder made ready, the
// points already complete kept, the others run by an executor (here or on a batch system), each
// gathered into DIR/sweep.db as it ends. Resumable: the same sweep again runs only what is missing;
// stopped (Ctrl-C), it keeps what finished and marks the rest 'not run'.
#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sweep/executor.hpp"
#include "sweep/gather.hpp"
#include "sweep/grid.hpp"

namespace ncp2::sweep {

struct SweepOptions {
  std::string out_dir;  // absolute
  bool force = false;   // replace another sweep in out_dir
  std::string command;  // the command line as given, for the sweep table
  std::string ncp2;     // the executable the points run (this very one)
};

struct SweepProgress {
  std::size_t total = 0;
  std::size_t done = 0;  // done now or kept from before
  std::size_t failed = 0;
  std::size_t running = 0;
  double elapsed_s = 0;
  std::optional<double> left_s;  // none until a point of this invocation finished
};

struct SweepObserver {
  std::function<void(const std::string&)> note;  // worth saying before the points run
  std::function<void(const SweepProgress&)> progress;
};

struct SweepOutcome {
  std::vector<Point> points;
  std::vector<PointRecord> records;  // index by index with points
  std::size_t kept = 0;              // complete points of an earlier invocation, not run again
  std::size_t ran = 0;               // points started now
  bool interrupted = false;
  std::string db_path;  // DIR/sweep.db
};

// Throws GridError, FolderError (before any point runs) and carnival::StoreError (sweep.db).
SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options, PointExecutor& executor,
                       const std::atomic<bool>& stop, const SweepObserver& observer = {});

}  // namespace ncp2::sweep
