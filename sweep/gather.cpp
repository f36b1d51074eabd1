// A point's files read back (sweep/gather.hpp).
#include "sweep/gather.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "carnival/model.hpp"
#include "carnival/output_paths.hpp"
#include "carnival/run_reader.hpp"
#include "sweep/point_command.hpp"

namespace ncp2::sweep {

namespace fs = std::filesystem;

bool point_complete(const std::string& out_dir, const Point& point) {
  const PointFiles files = point_files(point);
  std::error_code ec;
  return fs::is_regular_file(fmt::format("{}/{}", out_dir, files.stats_json), ec) &&
         carnival::stored_run_status(fmt::format("{}/{}", out_dir, files.db)) == "complete";
}

namespace {

// What a failed point said: its log's last "ncp2: ..." lines (ncp2 run's diagnosis, without the
// prefix), else its last lines. The log can be long (a program's output): only its tail is read.
std::string log_diagnosis(const std::string& path) {
  constexpr std::streamoff kTailBytes = 4096;
  constexpr int kLines = 3;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kTailBytes));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  std::vector<std::string> diagnosis;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    if (line.starts_with("ncp2: ")) diagnosis.push_back(line.substr(6));
    lines.push_back(std::move(line));
  }
  const std::vector<std::string>& chosen = diagnosis.empty() ? lines : diagnosis;
  std::string out;
  for (std::size_t i = chosen.size() > kLines ? chosen.size() - kLines : 0; i < chosen.size(); ++i)
    out += (out.empty() ? "" : "; ") + chosen[i];
  return out;
}

std::string failure_message(const std::string& log, const std::optional<PointRun>& run,
                            const std::string& fallback) {
  std::string said = log_diagnosis(log);
  if (!said.empty()) return said;
  if (!fallback.empty()) return fallback;
  if (run && run->exit_code >= 0) return fmt::format("exit code {}", run->exit_code);
  return "killed by a signal";
}

void read_times(const carnival::RunReader& reader, PointRecord& r) {
  std::map<std::string, std::int64_t> by_category;
  for (const carnival::ProfileCell& cell : reader.profile())
    by_category[std::string(carnival::to_string(cell.category))] += cell.time_ps;
  for (const carnival::CategoryDef& def : carnival::kCategoryTable)
    r.categories.push_back({std::string(def.name), by_category[std::string(def.name)]});
  // The PPs' waits by what they waited for; a CP's waits for its PP are its CPWait category.
  std::map<std::string, WaitTime> by_kind;
  for (const carnival::WaitSummary& w : reader.wait_summary()) {
    if (w.kind != "Wait") continue;
    WaitTime& t = by_kind[w.operation];
    t.kind = w.operation;
    t.count += static_cast<std::int64_t>(w.count);
    t.time_ps += w.total_ps;
  }
  for (auto& [kind, time] : by_kind) r.waits.push_back(std::move(time));
  std::stable_sort(r.waits.begin(), r.waits.end(),
                   [](const WaitTime& a, const WaitTime& b) { return a.time_ps > b.time_ps; });
}

// The verdict on a point whose database could be read.
void judge_stored_run(const carnival::RunInfo& info, bool have_json, const std::string& log,
                      const std::optional<PointRun>& run, PointRecord& r) {
  const bool ran_now = run && run->end == RunEnd::Exited;
  const bool exit_failed = ran_now && run->exit_code != 0;
  if (info.status == "complete") {
    if (!info.verified) {
      r.status = PointStatus::Failed;
      r.message = fmt::format("not verified: {}", info.message);
    } else if (exit_failed) {
      r.status = PointStatus::Failed;
      r.message = failure_message(log, run, info.message);
    } else if (!have_json) {
      r.status = ran_now ? PointStatus::Failed : PointStatus::NotRun;
      r.message = "its statistics JSON is missing";
    } else {
      r.status = PointStatus::Done;
      r.message = info.message;
    }
  } else if (info.status == "incomplete" && !exit_failed) {
    r.status = PointStatus::NotRun;
    r.message = "interrupted before it finished";
  } else {  // failed, deadlock, or stopped with an error: what ncp2 run said, else the run's diagnosis
    r.status = PointStatus::Failed;
    r.message = failure_message(
        log, run, info.message.empty() ? info.status : fmt::format("{}: {}", info.status, info.message));
  }
}

}  // namespace

PointRecord gather_point(const std::string& out_dir, const Point& point, const std::optional<PointRun>& run) {
  const PointFiles files = point_files(point);
  const std::string db = fmt::format("{}/{}", out_dir, files.db);
  const std::string log = fmt::format("{}/{}", out_dir, files.log);
  PointRecord r;
  if (run && !run->problem.empty()) {
    r.status = PointStatus::Failed;
    r.message = fmt::format("could not be started: {}", run->problem);
    return r;
  }
  std::optional<carnival::RunReader> reader;
  std::string unreadable;
  std::error_code ec;
  if (fs::exists(db, ec)) {
    try {
      reader.emplace(db);
    } catch (const std::exception& e) {
      unreadable = e.what();
    }
  }
  if (!reader) {
    if (!run || run->end == RunEnd::NotStarted) {
      r.message = "not run yet";
    } else if (run->end == RunEnd::Interrupted) {
      r.message = "interrupted before it finished";
    } else {
      r.status = PointStatus::Failed;
      r.message = failure_message(log, run, unreadable.empty() ? "it left no database" : unreadable);
      r.wall_s = run->wall_s;
    }
    return r;
  }
  const carnival::RunInfo& info = reader->run();
  judge_stored_run(info, fs::is_regular_file(fmt::format("{}/{}", out_dir, files.stats_json), ec), log, run,
                   r);
  if (r.status == PointStatus::NotRun) return r;  // a partial run's numbers are not the point's
  r.virtual_time_ps = info.virtual_time_ps;
  r.verified = info.verified;
  r.wall_s = info.wall_seconds;
  read_times(*reader, r);
  return r;
}

void compute_speedups(const std::vector<Point>& points, std::vector<PointRecord>& records) {
  std::map<std::pair<std::string, std::string>, std::int64_t> one_node;  // (machine, settings) -> time
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].nodes == 1 && records[i].status == PointStatus::Done &&
        records[i].virtual_time_ps.value_or(0) > 0)
      one_node[{points[i].machine, settings_text(points[i])}] = *records[i].virtual_time_ps;
  for (std::size_t i = 0; i < points.size(); ++i) {
    PointRecord& r = records[i];
    r.speedup.reset();
    const auto base = one_node.find({points[i].machine, settings_text(points[i])});
    if (r.status != PointStatus::Done || base == one_node.end() || r.virtual_time_ps.value_or(0) <= 0)
      continue;
    r.speedup = static_cast<double>(base->second) / static_cast<double>(*r.virtual_time_ps);
  }
}

}  // namespace ncp2::sweep
