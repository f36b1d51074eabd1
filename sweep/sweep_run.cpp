// A sweep from its grid to its database (sweep/sweep_run.hpp).
#include "sweep/sweep_run.hpp"

#include <chrono>
#include <map>

#include <fmt/format.h>

#include "carnival/utc_time.hpp"
#include "real_machine/subprocess.hpp"
#include "sweep/point_command.hpp"
#include "sweep/sweep_db.hpp"
#include "sweep/sweep_folder.hpp"
#include "sweep/time_left.hpp"

namespace ncp2::sweep {

namespace {

using Clock = std::chrono::steady_clock;

// The state of one invocation: the records, what runs, and the database rewritten as points end.
class Invocation {
 public:
  Invocation(const SweepOptions& options, SweepHeader header, std::vector<Point> points,
             const SweepObserver& observer, const PointExecutor& executor)
      : options_(options),
        header_(std::move(header)),
        observer_(observer),
        executor_(executor),
        start_(Clock::now()) {
    outcome_.points = std::move(points);
    outcome_.records.resize(outcome_.points.size());
    outcome_.db_path = fmt::format("{}/{}", options_.out_dir, kSweepDbName);
  }

  SweepOutcome& outcome() { return outcome_; }
  const Point& point(std::size_t i) const { return outcome_.points[i]; }

  void keep(std::size_t i) {
    outcome_.records[i] = gather_point(options_.out_dir, point(i), std::nullopt);
    ++outcome_.kept;
  }
  void started(std::size_t i) {
    running_[i] = Clock::now();
    ++outcome_.ran;
  }
  void finished(std::size_t i, const PointRun& run) {
    running_.erase(i);
    outcome_.records[i] = gather_point(options_.out_dir, point(i), run);
    if (run.end == RunEnd::Exited && run.problem.empty()) time_left_.finished(point(i).nodes, run.wall_s);
    publish();
    report();
  }
  // The database as it stands: a reader (the GUI, a plot) follows the sweep while it runs.
  void publish() {
    compute_speedups(outcome_.points, outcome_.records);
    write_sweep_db(outcome_.db_path, header_, outcome_.points, outcome_.records);
  }
  void report() const {
    if (!observer_.progress) return;
    SweepProgress p;
    p.total = outcome_.points.size();
    std::vector<int> pending;
    std::vector<TimeLeft::Running> running;
    for (std::size_t i = 0; i < outcome_.records.size(); ++i) {
      const PointStatus s = outcome_.records[i].status;
      p.done += s == PointStatus::Done ? 1 : 0;
      p.failed += s == PointStatus::Failed ? 1 : 0;
      if (const auto r = running_.find(i); r != running_.end())
        running.push_back({point(i).nodes, std::chrono::duration<double>(Clock::now() - r->second).count()});
      else if (s == PointStatus::NotRun)
        pending.push_back(point(i).nodes);
    }
    p.running = running.size();
    p.elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
    // Asked each time: a batch system's parallelism is what it grants, not what was asked.
    p.left_s = time_left_.estimate(pending, running, executor_.parallelism());
    observer_.progress(p);
  }

 private:
  const SweepOptions& options_;
  SweepHeader header_;
  const SweepObserver& observer_;
  const PointExecutor& executor_;
  Clock::time_point start_;
  SweepOutcome outcome_;
  std::map<std::size_t, Clock::time_point> running_;
  TimeLeft time_left_;
};

SweepHeader header_of(const SweepSpec& spec, const SweepOptions& options) {
  return {kSweepFormat,    options.command,        spec.target, real::command_line_text(spec.program_args),
          grid_hash(spec), carnival::utc_now_iso()};
}

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options, PointExecutor& executor,
                       const std::atomic<bool>& stop, const SweepObserver& observer) {
  std::vector<Point> points = expand_grid(spec);
  SweepHeader header = header_of(spec, options);
  const FolderState folder = prepare_folder(options.out_dir, header, points, options.force);
  header.created = folder.created;
  if (observer.note)
    for (const std::string& n : folder.notes) observer.note(n);
  Invocation sweep(options, header, std::move(points), observer, executor);
  std::vector<PointJob> jobs;
  for (std::size_t i = 0; i < sweep.outcome().points.size(); ++i) {
    const Point& p = sweep.point(i);
    if (folder.resumed && point_complete(options.out_dir, p)) {
      sweep.keep(i);
      continue;
    }
    sweep.outcome().records[i].message = "not run yet";
    jobs.push_back({i, point_command(options.ncp2, spec, p, options.out_dir),
                    fmt::format("{}/{}", options.out_dir, point_files(p).log), static_cast<double>(p.nodes)});
  }
  if (observer.note && sweep.outcome().kept > 0)
    observer.note(fmt::format("resuming: {} of {} points are complete and kept; {} to run",
                              sweep.outcome().kept, sweep.outcome().points.size(), jobs.size()));
  sweep.publish();
  ExecutorObserver events;
  // A failed or interrupted earlier attempt's files go as the point is launched again.
  events.launching = [&](std::size_t i) { remove_point_files(options.out_dir, sweep.point(i)); };
  events.started = [&sweep](std::size_t i) { sweep.started(i); };
  events.finished = [&sweep](std::size_t i, const PointRun& run) { sweep.finished(i, run); };
  events.tick = [&sweep] { sweep.report(); };
  events.stopping = [&observer](std::size_t running) {
    if (observer.note && running > 0)
      observer.note(fmt::format("stopping the {} running point(s); the finished ones are kept", running));
  };
  if (!jobs.empty()) executor.run(jobs, stop, events);
  SweepOutcome& outcome = sweep.outcome();
  outcome.interrupted = stop.load(std::memory_order_relaxed);
  if (outcome.interrupted)
    for (PointRecord& r : outcome.records)
      if (r.status == PointStatus::NotRun && r.message == "not run yet")
        r.message = "the sweep was stopped first";
  sweep.publish();
  return std::move(outcome);
}

}  // namespace ncp2::sweep
