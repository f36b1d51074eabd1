#pragma once
// The sweep database, DIR/sweep.db (docs/schema.md, "The sweep database"): one row for the sweep,
// one per point with its settings, virtual time, speedup, categories and waits; read back by
// sweep/sweep_reader.hpp. Written whole into a temporary file and renamed into place
// (carnival/file_publish.hpp): a reader sees the previous version or the next, never half of one.
#include <string>
#include <vector>

#include "sweep/gather.hpp"
#include "sweep/grid.hpp"
#include "sweep/sweep_reader.hpp"

namespace ncp2::sweep {

// The sweep table's `format` this writer writes: incremented with every change of these tables
// (the reader, sweep/sweep_reader.hpp, reads up to kSweepFormatRead). SweepHeader is the reader's.
inline constexpr int kSweepFormat = 1;
static_assert(kSweepFormat <= kSweepFormatRead, "the reader must read what the writer writes");
inline constexpr const char* kSweepDbName = "sweep.db";

// Writes `path` afresh (replacing the previous version, which must be a database of ours).
// `records` go with `points`, index by index. Throws carnival::StoreError.
void write_sweep_db(const std::string& path, const SweepHeader& header, const std::vector<Point>& points,
                    const std::vector<PointRecord>& records);

}  // namespace ncp2::sweep
