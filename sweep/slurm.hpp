#pragma once
// A sweep's points on Slurm (`ncp2 sweep --slurm`, docs/sweeps.md, "On Slurm"): the points to run
// become one job array, a task per point, each task running the very command line the local
// runner runs (sweep/point_command.hpp), its output in the point's log. This waits for the tasks,
// reports each as it ends (the sweep gathers it), and says which failed and why: the command's exit
// code, or the state in which Slurm ended the task (TIMEOUT, CANCELLED, NODE_FAIL, ...), and the
// last lines of its logs. Resumable: a job of an earlier submission still pending or running is
// waited for, not submitted again; Ctrl-C stops the waiting, not the job.
//
// In DIR/slurm/: job.sh (the array's script), submissions/K/ (the K-th submission's `points`
// file, a shell-quoted command a line, and its `job_id`), logs/JOB_TASK.log (what Slurm and the
// script say of a task), status/JOB_TASK.exit (the command's exit code and times, written by the
// task when the command returns: a task that Slurm ended has none).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sweep/executor.hpp"
#include "sweep/slurm_tasks.hpp"

namespace ncp2::sweep {

struct SlurmOptions {
  std::filesystem::path sweep_dir;       // DIR
  std::vector<std::string> sbatch_args;  // --sbatch-arg values, in order, after ours: they win
  std::chrono::milliseconds poll_interval{std::chrono::seconds(5)};
  // Whether a point's complete files are in DIR: after an earlier submission has been waited for,
  // only the points it did not complete are submitted. None: every point given is submitted.
  std::function<bool(std::size_t point)> is_complete;
};

struct SlurmFailure {
  std::string task;                 // JOB_TASK
  std::string state;                // Slurm's (FAILED, TIMEOUT, CANCELLED, NODE_FAIL, ...), or ENDED
  std::optional<int> exit_code;     // the point's command's, when it returned
  std::filesystem::path slurm_log;  // what Slurm and the script said of the task
  std::string log_tail;             // the last lines of the point's log, else of the task's
};

// Checks that sbatch and squeue are on PATH; throws SlurmError saying what to install otherwise.
void check_slurm_commands();

// A failure in words, one line: "STATE, exit code N: WHY (slurm task JOB_TASK, log FILE)".
[[nodiscard]] std::string describe(const SlurmFailure& failure);

class SlurmExecutor final : public PointExecutor {
 public:
  // Progress (the submission, the tasks pending and running, each failure) goes to `progress`.
  SlurmExecutor(SlurmOptions options, std::ostream& progress);
  // Waits for an earlier submission still active (its tasks that are among `jobs` are reported as
  // they end), submits the rest not complete as one array, and waits for it. When `stop` becomes
  // true it stops waiting (the job goes on; running tasks are reported Interrupted) and returns.
  // Throws SlurmError before anything is submitted when Slurm cannot be used (no sbatch, a point no
  // line can hold, sbatch refusing the job, an --sbatch-arg --array).
  void run(const std::vector<PointJob>& jobs, const std::atomic<bool>& stop,
           const ExecutorObserver& observer) override;
  // The most tasks seen running at once (at least 1): the cluster decides, not us.
  [[nodiscard]] int parallelism() const override { return most_running_; }
  // Every task that failed in `run`, in the order they were found.
  [[nodiscard]] const std::vector<SlurmFailure>& failures() const { return failures_; }

 private:
  SlurmOptions options_;
  std::ostream& progress_;
  int most_running_ = 1;
  std::vector<SlurmFailure> failures_;
};

}  // namespace ncp2::sweep
