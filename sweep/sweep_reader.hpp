#pragma once
// THE read side of a sweep database (DIR/sweep.db, written by `ncp2 sweep`; docs/schema.md, "The
// sweep database"): opened read-only, checked to be one, read whole into value rows. A sweep is
// small (a row per point), so it is read at once. Used by the sweep's plots and the GUI's sweep
// view. Every failure throws carnival::StoreError with a message that names the file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "carnival/model.hpp"
#include "carnival/store_error.hpp"

namespace ncp2::sweep {

// The newest `sweep.format` this reader understands.
inline constexpr int kSweepFormatRead = 1;

enum class PointStatus { Done, Failed, NotRun };
std::string_view to_string(PointStatus status);  // "done", "failed", "not run"

struct Setting {
  std::string key;
  std::string value;
};
struct CategoryTime {
  std::string category;
  std::int64_t time_ps = 0;  // summed over the point's nodes
};
struct WaitTime {
  std::string kind;
  std::int64_t count = 0;
  std::int64_t time_ps = 0;
};

struct SweepPoint {
  std::int64_t id = 0;
  std::string name;
  std::string machine;
  int nodes = 0;
  std::string settings;                 // as stored: "k=v;k2=v2", "" when none
  std::vector<Setting> setting_values;  // the same, one per key
  PointStatus status = PointStatus::NotRun;
  std::string message;  // why it failed, or the verification's verdict
  std::string db_file;  // the point's run database, relative to the sweep's folder
  std::optional<std::int64_t> virtual_time_ps;
  std::optional<double> speedup;  // over the 1-node point of the same machine and settings
  bool verified = false;
  std::optional<double> wall_s;
  std::vector<CategoryTime> categories;
  std::vector<WaitTime> waits;

  // The curve the point belongs to: its machine and settings ("ncp2, network.link_latency=200ns").
  [[nodiscard]] std::string series() const;
};

struct SweepHeader {
  int format = 0;
  std::string command;
  std::string target;
  std::string program_args;
  std::string grid_hash;
  std::string created;
};

struct Sweep {
  std::string db_path;  // the sweep.db read
  std::string folder;   // the folder holding it: point databases are relative to it
  SweepHeader header;
  std::vector<SweepPoint> points;  // by id

  // The point's run database (folder / db_file); "" when the point has none.
  [[nodiscard]] std::string point_db_path(const SweepPoint& point) const;
  [[nodiscard]] std::size_t count(PointStatus status) const;
  [[nodiscard]] const SweepPoint* find(std::int64_t id) const;
};

// `path`: a sweep.db, or the folder holding one. Throws carnival::StoreError ("no such file",
// "not an SQLite database", "not a sweep database (...)", "written by a newer version",
// "corrupt").
Sweep read_sweep(const std::string& path);

// The sweep.db that `path` names: itself, or the one in the folder `path`.
std::string sweep_database_path(const std::string& path);

// Whether `path` is a sweep (a sweep.db, or a folder holding one) rather than something else,
// without reading its rows; never throws. For the GUI, which opens runs and sweeps alike.
bool is_sweep(const std::string& path);

// The categories' names and colours as the points' run databases store them (the `categories`
// table of the first done point's database that can be read), or the catalogue's when none can.
std::vector<carnival::CategoryInfo> category_styles(const Sweep& sweep);

}  // namespace ncp2::sweep
