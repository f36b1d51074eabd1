#pragma once
// The sweep's folder made ready before any point runs (`ncp2 sweep --out DIR`): created when
// missing, writable, and either new, or holding this very sweep (resumed), or another sweep, which
// is replaced only with --force. Only the sweep's own files are ever removed: sweep.db and the
// files of its points in DIR/points/.
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/grid.hpp"
#include "sweep/sweep_db.hpp"

namespace ncp2::sweep {

// The folder cannot hold the sweep (not creatable, not writable, another sweep without --force):
// the message is for the user; `ncp2 sweep` exits 2.
class FolderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FolderState {
  bool resumed = false;            // the folder holds this sweep already
  std::string created;             // when the sweep was first started (the earlier one's when resumed)
  std::vector<std::string> notes;  // what was done worth saying (another sweep's files removed)
};

// `header` is the new sweep's (its grid_hash and created are used). Throws FolderError.
FolderState prepare_folder(const std::string& out_dir, const SweepHeader& header,
                           const std::vector<Point>& points, bool force);

// Removes a point's database, statistics JSON and log, before it runs again (ncp2 run never
// replaces a database without --force).
void remove_point_files(const std::string& out_dir, const Point& point);

}  // namespace ncp2::sweep
