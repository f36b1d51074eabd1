#pragma once
// What Slurm says about a sweep's job array, read from its commands' text (`squeue`, `sacct`) and
// from a task's log, and how a point's command line is written for its task (sweep/slurm.hpp).
// Pure: no command is run and no file is read here.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ncp2::sweep {

// The sweep cannot go to Slurm (no sbatch, a refused submission, a point no job can run): the
// message is for the user; nothing was submitted.
class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A task's state as Slurm names it: "PENDING", "RUNNING", "COMPLETED", "FAILED", "TIMEOUT", ...
struct SlurmTaskState {
  std::string state;
  std::optional<int> exit_code;  // sacct's, when it was asked
};

// False only for the states a task never leaves (COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL,
// OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE): a state not known here is waited for.
[[nodiscard]] bool is_active_state(std::string_view state);

// `squeue -h -r -t all -j JOB -o '%K|%T'` lines ("3|RUNNING") -> task -> state. A line that does
// not parse is skipped (a warning the command printed among them).
[[nodiscard]] std::map<int, SlurmTaskState> parse_squeue_tasks(std::string_view output);

// `sacct -n -P -X -j JOB -o JobID,State,ExitCode` lines ("JOB_3|CANCELLED by 0|0:15") -> task ->
// state and exit code; lines of other jobs, a whole-array line ("JOB_[4-7]") and anything else
// that does not parse are skipped.
[[nodiscard]] std::map<int, SlurmTaskState> parse_sacct_tasks(std::string_view output,
                                                              std::string_view job_id);

// The state a task's log names when Slurm ended the task itself (slurmstepd's "*** JOB 12 ON node
// CANCELLED AT ... DUE TO TIME LIMIT ***": TIMEOUT), nullopt when it names none.
[[nodiscard]] std::optional<std::string> state_from_log(std::string_view log);

// `sbatch --parsable`'s answer ("123" or "123;cluster", after any warning lines) -> "123";
// nullopt when there is no job id in it.
[[nodiscard]] std::optional<std::string> job_id_from_sbatch(std::string_view output);

// One point as one line of the job's points file: the file its command's output goes to ("-":
// the task's own log), then its argv, quoted so that bash's `eval "set -- LINE"` gives back exactly
// these words (real::command_line_text). Throws SlurmError for a word with a newline or a NUL,
// which no line can hold.
[[nodiscard]] std::string points_file_line(const std::string& log, const std::vector<std::string>& argv);

// A task's status file (written by the job's script when the point's command returns): "CODE
// START END", the times in seconds of the epoch. Nullopt when it holds no exit code.
struct TaskExit {
  int exit_code = 0;
  double wall_s = 0;
};
[[nodiscard]] std::optional<TaskExit> parse_task_exit(std::string_view text);

}  // namespace ncp2::sweep
