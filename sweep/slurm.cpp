// A sweep's points as a Slurm job array (sweep/slurm.hpp).
#include "sweep/slurm.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "real_machine/launcher.hpp"
#include "real_machine/subprocess.hpp"

namespace ncp2::sweep {

// Names unique to this file: sweep/ compiles as unity batches (CMakeLists.txt, NCP2_UNITY_BUILD).
namespace slurm_job {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The array's script: always the same (sbatch copies it), a submission's data in its arguments.
constexpr std::string_view kJobScript = R"script(#!/bin/bash
# ncp2 sweep --slurm: one point of a sweep per task of this job array (docs/sweeps.md, "On Slurm").
# sbatch --array=0-(K-1) job.sh POINTS STATUS_DIR: task T runs line T+1 of POINTS (the point's log,
# then its command, quoted for bash), its output appended to the log, and writes "CODE START END"
# to STATUS_DIR/JOB_T.exit when the command returns. A task that Slurm ends writes none.
set -u
points=$1
status_dir=$2
task=${SLURM_ARRAY_TASK_ID:?job.sh runs as a task of a job array}
line=$(sed -n "$((task + 1))p" "$points")
if [ -z "$line" ]; then
  echo "ncp2 sweep: $points has no line $((task + 1))" >&2
  exit 2
fi
eval "set -- $line"
log=$1
shift
echo "ncp2 sweep: task $task on $(hostname -s): $line"
start=$EPOCHREALTIME
if [ "$log" = - ]; then "$@"; else "$@" >>"$log" 2>&1; fi
code=$?
status="$status_dir/${SLURM_ARRAY_JOB_ID}_$task.exit"
echo "$code $start $EPOCHREALTIME" >"$status.tmp.$$" && mv -f "$status.tmp.$$" "$status"
exit "$code"
)script";

constexpr int kLogLines = 6;
// A file system shared with the nodes may show a task's status file after squeue says it ended.
constexpr auto kStatusFileGrace = std::chrono::seconds(20);
// How often the status files (and Ctrl-C) are looked at between two questions to squeue.
constexpr auto kStatusCheck = std::chrono::milliseconds(250);

struct SlurmFiles {
  fs::path root, script, logs, status, submissions;

  explicit SlurmFiles(const fs::path& sweep_dir)
      : root(fs::absolute(sweep_dir).lexically_normal() / "slurm"),
        script(root / "job.sh"),
        logs(root / "logs"),
        status(root / "status"),
        submissions(root / "submissions") {}
  fs::path log(const std::string& job, int task) const { return logs / fmt::format("{}_{}.log", job, task); }
  fs::path exit_file(const std::string& job, int task) const {
    return status / fmt::format("{}_{}.exit", job, task);
  }
};

// One submitted array: its folder (submissions/K), job id and points-file lines, task by task.
struct Submission {
  fs::path dir;
  std::string job_id;
  std::vector<std::string> lines;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_text(const fs::path& path, std::string_view text) {
  carnival::write_file_atomically(path.string(), [&](std::ostream& out) { out << text; });
}

// The submissions' numbers (their folders' names), ascending.
std::vector<long> submission_numbers(const SlurmFiles& files) {
  std::vector<long> numbers;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(files.submissions, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name.size() < 10 &&
        std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
      numbers.push_back(std::stol(name));
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

// The newest submission that got a job id, if any.
std::optional<Submission> latest_submission(const SlurmFiles& files) {
  std::vector<long> numbers = submission_numbers(files);
  std::reverse(numbers.begin(), numbers.end());
  for (const long number : numbers) {
    const fs::path dir = files.submissions / std::to_string(number);
    const std::vector<std::string> id = read_lines(dir / "job_id");
    if (!id.empty() && !id.front().empty()) return Submission{dir, id.front(), read_lines(dir / "points")};
  }
  return std::nullopt;
}

// squeue's view of the job's tasks; nullopt when squeue could not answer (the controller busy or
// down: asked again at the next poll). A job squeue no longer knows has no task in it.
std::optional<std::map<int, SlurmTaskState>> squeue_tasks(const std::string& job_id) {
  const real::CommandResult r =
      real::run_command({"squeue", "-h", "-r", "-t", "all", "-j", job_id, "-o", "%K|%T"});
  if (r.exit_code == 0) return parse_squeue_tasks(r.output);
  if (r.output.find("Invalid job id") != std::string::npos) return std::map<int, SlurmTaskState>{};
  return std::nullopt;
}

// sacct's states of the job's tasks; empty where accounting is off (sacct then fails).
std::map<int, SlurmTaskState> sacct_tasks(const std::string& job_id) {
  const real::CommandResult r =
      real::run_command({"sacct", "-n", "-P", "-X", "-j", job_id, "-o", "JobID,State,ExitCode"});
  return r.exit_code == 0 ? parse_sacct_tasks(r.output, job_id) : std::map<int, SlurmTaskState>{};
}

std::string log_tail(const fs::path& path) {
  std::string text = read_text(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return real::last_lines(text, kLogLines);
}

// The point's name, as its log is named (points/NAME.log), for messages.
std::string point_name(const std::string& line) {
  const std::vector<std::string> words = real::split_shell_words(line);
  return words.empty() || words.front() == "-" ? line : fs::path(words.front()).stem().string();
}

// What a wait reports into: the executor's options, progress stream and tallies.
struct WaitContext {
  const SlurmOptions& options;
  std::ostream& progress;
  int& most_running;
  std::vector<SlurmFailure>& failures;
};

// Follows one submitted array until every task ended, reporting each task to the observer as it
// starts and ends.
class SlurmWait {
 public:
  SlurmWait(WaitContext executor, const SlurmFiles& files, Submission job,
            const std::map<int, std::size_t>& task_points, const ExecutorObserver& observer)
      : executor_(executor),
        files_(files),
        job_(std::move(job)),
        observer_(observer),
        tasks_(job_.lines.size()) {
    for (const auto& [task, point] : task_points) tasks_[static_cast<std::size_t>(task)].point = point;
  }

  // False when `stop` ended the wait (tasks may still run).
  bool follow(const std::atomic<bool>& stop) {
    int failed_polls = 0;
    std::optional<std::map<int, SlurmTaskState>> states;
    for (auto next_squeue = Clock::now();; std::this_thread::sleep_for(kStatusCheck)) {
      if (stop.load()) return stopped();
      // Slurm is asked every poll interval (kind to a busy controller); the status files, which
      // say at once that a point's command returned, at every check.
      if (Clock::now() >= next_squeue) {
        states = squeue_tasks(job_.job_id);
        next_squeue = Clock::now() + executor_.options.poll_interval;
        if (!states && ++failed_polls % 12 == 1)
          executor_.progress << fmt::format("slurm job {}: squeue did not answer; asking again\n",
                                            job_.job_id);
        if (observer_.tick) observer_.tick();
      }
      if (poll(states)) return true;
    }
  }

 private:
  struct Task {
    std::optional<std::size_t> point;  // the sweep's point, when the task runs one of this run's jobs
    bool started = false;
    bool ended = false;
    std::optional<Clock::time_point> gone_since;  // Slurm says it ended; no status file yet
  };

  // One look at every task; true when all have ended.
  bool poll(const std::optional<std::map<int, SlurmTaskState>>& states) {
    int pending = 0, running = 0;
    const std::set<int> exited = tasks_with_status();
    for (int task = 0; task < static_cast<int>(tasks_.size()); ++task) {
      Task& t = tasks_[static_cast<std::size_t>(task)];
      if (t.ended) continue;
      std::optional<TaskExit> exit;
      if (exited.contains(task)) exit = parse_task_exit(read_text(files_.exit_file(job_.job_id, task)));
      std::optional<SlurmTaskState> state;
      if (states)
        if (const auto it = states->find(task); it != states->end()) state = it->second;
      if (exit || (states && !(state && is_active_state(state->state)) && grace_over(t, state))) {
        end(task, exit, state);
      } else if (!state || state->state == "PENDING") {
        ++pending;
      } else {
        ++running;
        if (!t.started && t.point && observer_.started) observer_.started(*t.point);
        t.started = true;
      }
    }
    executor_.most_running = std::max(executor_.most_running, running);
    const int ended = static_cast<int>(tasks_.size()) - pending - running;
    const std::string now = fmt::format("slurm job {}: {} pending, {} running, {} of {} ended\n", job_.job_id,
                                        pending, running, ended, tasks_.size());
    if (now != said_) executor_.progress << now << std::flush;
    said_ = now;
    return pending + running == 0;
  }

  // The tasks of this job whose status file is there: one look at the folder, not one per task.
  std::set<int> tasks_with_status() const {
    std::set<int> tasks;
    const std::string prefix = job_.job_id + "_";
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(files_.status, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with(prefix) || !name.ends_with(".exit")) continue;
      const std::string number = name.substr(prefix.size(), name.size() - prefix.size() - 5);
      int task = -1;
      const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), task);
      if (error == std::errc{} && end == number.data() + number.size()) tasks.insert(task);
    }
    return tasks;
  }

  // A task that ran its script to the end (COMPLETED, FAILED) wrote its status file: it is given a
  // little time to show on a shared file system before the task counts as ended without one.
  static bool grace_over(Task& t, const std::optional<SlurmTaskState>& state) {
    if (!state || (state->state != "COMPLETED" && state->state != "FAILED")) return true;
    if (!t.gone_since) t.gone_since = Clock::now();
    return Clock::now() - *t.gone_since >= kStatusFileGrace;
  }

  void end(int task, const std::optional<TaskExit>& exit, const std::optional<SlurmTaskState>& state) {
    Task& t = tasks_[static_cast<std::size_t>(task)];
    t.ended = true;
    // A task may start and end between two looks at squeue: the sweep hears of its start all the same.
    if (!t.started && exit && t.point && observer_.started) observer_.started(*t.point);
    t.started = true;
    const PointRun run{RunEnd::Exited, exit ? exit->exit_code : -1, exit ? exit->wall_s : 0, {}};
    if (!exit || exit->exit_code != 0) report_failure(task, exit, state);
    if (t.point && observer_.finished) observer_.finished(*t.point, run);
  }

  void report_failure(int task, const std::optional<TaskExit>& exit,
                      const std::optional<SlurmTaskState>& state) {
    const fs::path slurm_log = files_.log(job_.job_id, task);
    SlurmFailure failure{fmt::format("{}_{}", job_.job_id, task), "", std::nullopt, slurm_log, ""};
    if (exit) failure.exit_code = exit->exit_code;
    if (state && !is_active_state(state->state) && state->state != "COMPLETED") failure.state = state->state;
    if (failure.state.empty()) {
      if (!accounted_) accounted_ = sacct_tasks(job_.job_id);
      if (const auto it = accounted_->find(task); it != accounted_->end() && it->second.state != "COMPLETED")
        failure.state = it->second.state;
    }
    if (failure.state.empty())
      failure.state = state_from_log(read_text(slurm_log)).value_or(exit ? "FAILED" : "ENDED");
    const std::vector<std::string> words =
        real::split_shell_words(job_.lines[static_cast<std::size_t>(task)]);
    const std::string point_log = words.empty() || words.front() == "-" ? std::string() : words.front();
    // A task that Slurm ended left no word of it in the point's log: the sweep's message is read there.
    if (!exit && !point_log.empty())
      std::ofstream(point_log, std::ios::app) << "ncp2 sweep: " << describe(failure) << '\n';
    failure.log_tail = log_tail(point_log.empty() ? slurm_log : fs::path(point_log));
    executor_.progress << fmt::format(
        "failed: {}: {}\n", point_name(job_.lines[static_cast<std::size_t>(task)]), describe(failure));
    for (std::size_t at = 0; at < failure.log_tail.size();) {
      const std::size_t next = std::min(failure.log_tail.find('\n', at), failure.log_tail.size());
      executor_.progress << "    " << std::string_view(failure.log_tail).substr(at, next - at) << '\n';
      at = next + 1;
    }
    executor_.failures.push_back(std::move(failure));
  }

  bool stopped() {
    for (const Task& t : tasks_)
      if (t.started && !t.ended && t.point && observer_.finished)
        observer_.finished(*t.point, PointRun{RunEnd::Interrupted, -1, 0, {}});
    executor_.progress << fmt::format(
        "stopped waiting: slurm job {} goes on (scancel {} stops it); the same command again waits for it "
        "and "
        "gathers its points\n",
        job_.job_id, job_.job_id);
    return false;
  }

  WaitContext executor_;
  const SlurmFiles& files_;
  Submission job_;
  const ExecutorObserver& observer_;
  std::vector<Task> tasks_;
  std::string said_;
  std::optional<std::map<int, SlurmTaskState>> accounted_;  // sacct's answer, asked once when needed
};

void check_sbatch_args(const std::vector<std::string>& args) {
  for (const std::string& arg : args)
    if (arg == "-a" || arg.starts_with("--array") ||
        (arg.starts_with("-a") && arg.size() > 2 && arg[2] != '-'))
      throw SlurmError(
          fmt::format("--sbatch-arg {}: ncp2 sweep makes the job array itself, a task per point", arg));
}

// Writes the array's files and submits it; the submission's folder keeps its points file and job
// id. Throws SlurmError when sbatch refuses (the folder is removed again).
Submission submit(const std::vector<std::string>& lines, const SlurmFiles& files,
                  const SlurmOptions& options) {
  const std::vector<long> numbers = submission_numbers(files);
  Submission job{files.submissions / std::to_string(numbers.empty() ? 1 : numbers.back() + 1), "", lines};
  std::string text;
  for (const std::string& line : lines) text += line + '\n';
  for (const fs::path& dir : {files.logs, files.status, job.dir}) fs::create_directories(dir);
  write_text(files.script, kJobScript);
  fs::permissions(files.script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  write_text(job.dir / "points", text);
  const fs::path sweep_dir = files.root.parent_path();
  std::vector<std::string> argv{"sbatch", "--parsable", fmt::format("--array=0-{}", lines.size() - 1),
                                "--job-name=ncp2-sweep-" + sweep_dir.filename().string(),
                                "--output=" + (files.logs / "%A_%a.log").string()};
  argv.insert(argv.end(), options.sbatch_args.begin(), options.sbatch_args.end());
  argv.insert(argv.end(), {files.script.string(), (job.dir / "points").string(), files.status.string()});
  const real::CommandResult r = real::run_command(argv);
  const std::optional<std::string> id = r.exit_code == 0 ? job_id_from_sbatch(r.output) : std::nullopt;
  if (!id) {
    std::error_code ec;
    fs::remove_all(job.dir, ec);
    throw SlurmError(fmt::format("sbatch did not submit the job array ({}): {}",
                                 real::command_line_text(argv), real::last_lines(r.output, kLogLines)));
  }
  job.job_id = *id;
  write_text(job.dir / "job_id", job.job_id + '\n');
  return job;
}

// Whether any task of the job may still run (squeue not answering counts as yes).
bool still_active(const Submission& job) {
  const std::optional<std::map<int, SlurmTaskState>> tasks = squeue_tasks(job.job_id);
  return !tasks || std::any_of(tasks->begin(), tasks->end(),
                               [](const auto& t) { return is_active_state(t.second.state); });
}

}  // namespace
}  // namespace slurm_job

void check_slurm_commands() {
  for (const char* command : {"sbatch", "squeue"})
    if (real::search_path(command).empty())
      throw SlurmError(fmt::format(
          "{} is not on PATH: `ncp2 sweep --slurm` submits the points with Slurm's sbatch and follows "
          "them with squeue; run it where Slurm's commands are (a cluster's login node; Debian: "
          "apt-get install slurm-client), or without --slurm to run the points here",
          command));
}

std::string describe(const SlurmFailure& failure) {
  std::string why = failure.state;
  if (failure.exit_code) why += fmt::format(", exit code {}", *failure.exit_code);
  if (failure.state == "TIMEOUT")
    why += ": stopped at the job's time limit (a longer one: --sbatch-arg=--time=...)";
  if (failure.state == "OUT_OF_MEMORY") why += ": over its memory limit (more: --sbatch-arg=--mem=...)";
  if (failure.state == "CANCELLED") why += ": cancelled (scancel, or an administrator)";
  if (failure.state == "NODE_FAIL") why += ": its node failed";
  if (failure.state == "PREEMPTED") why += ": preempted by another job";
  if (failure.state == "ENDED") why += ": ended without an exit code, and Slurm no longer says why";
  return fmt::format("{} (slurm task {}, log {})", why, failure.task, failure.slurm_log.string());
}

SlurmExecutor::SlurmExecutor(SlurmOptions options, std::ostream& progress)
    : options_(std::move(options)), progress_(progress) {}

void SlurmExecutor::run(const std::vector<PointJob>& jobs, const std::atomic<bool>& stop,
                        const ExecutorObserver& observer) {
  check_slurm_commands();
  const slurm_job::WaitContext context{options_, progress_, most_running_, failures_};
  slurm_job::check_sbatch_args(options_.sbatch_args);
  // Heaviest first, as here: the array's first tasks start first.
  std::vector<const PointJob*> order;
  order.reserve(jobs.size());
  for (const PointJob& job : jobs) order.push_back(&job);
  std::stable_sort(order.begin(), order.end(),
                   [](const PointJob* a, const PointJob* b) { return a->weight > b->weight; });
  std::map<std::string, std::size_t> point_of_line;
  for (const PointJob* job : order)
    point_of_line.emplace(points_file_line(job->log_path, job->argv), job->point);
  const slurm_job::SlurmFiles files(options_.sweep_dir);
  // An earlier submission still pending or running: its points are on their way; wait for them.
  if (std::optional<slurm_job::Submission> earlier = slurm_job::latest_submission(files);
      earlier && slurm_job::still_active(*earlier)) {
    progress_ << fmt::format("slurm job {} of an earlier submission is still on its way: waiting for it\n",
                             earlier->job_id);
    std::map<int, std::size_t> task_points;
    for (std::size_t task = 0; task < earlier->lines.size(); ++task)
      if (const auto it = point_of_line.find(earlier->lines[task]); it != point_of_line.end()) {
        task_points[static_cast<int>(task)] = it->second;
        point_of_line.erase(it);
      }
    if (!slurm_job::SlurmWait(context, files, std::move(*earlier), task_points, observer).follow(stop))
      return;
  }
  std::vector<std::string> lines;
  std::map<int, std::size_t> task_points;
  for (const PointJob* job : order) {
    const std::string line = points_file_line(job->log_path, job->argv);
    if (!point_of_line.contains(line)) continue;  // its task of the earlier submission was followed
    if (options_.is_complete && options_.is_complete(job->point)) {
      // Completed by the earlier submission under another command line (ncp2 moved, say).
      if (observer.finished) observer.finished(job->point, PointRun{RunEnd::Exited, 0, 0, {}});
      continue;
    }
    task_points[static_cast<int>(lines.size())] = job->point;
    lines.push_back(line);
  }
  if (lines.empty() || stop.load()) return;
  if (observer.launching)
    for (const auto& [task, point] : task_points) observer.launching(point);
  slurm_job::Submission submitted = slurm_job::submit(lines, files, options_);
  progress_ << fmt::format("submitted {} points as slurm job {} (its files: {})\n", lines.size(),
                           submitted.job_id, files.root.string());
  slurm_job::SlurmWait(context, files, std::move(submitted), task_points, observer).follow(stop);
}

}  // namespace ncp2::sweep
