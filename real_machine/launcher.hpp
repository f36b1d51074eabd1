#pragma once
// Starting a real run (`ncp2 run ./prog --machine real`): the ncp2 command runs Open MPI's mpirun,
// which starts one node agent (ncp2-node) per rank. ncp2 itself is not an MPI program, so nothing
// here links MPI; docs/real-machine.md ("Launching") describes the behaviour for users.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ncp2::real {

// Why a run cannot be launched (no mpirun, not Open MPI, a bad hostfile...), said for the user.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using EnvironmentEntry = std::pair<std::string, std::string>;

struct MpiLaunch {
  int nodes = 1;
  std::string hostfile;                        // empty: every rank on this machine
  std::vector<std::string> node_command;       // the agent's argv, run on every rank
  std::vector<EnvironmentEntry> environment;   // exported to every rank (-x)
  std::string mpirun;                          // empty: NCP2_MPIRUN, then mpirun on PATH
  std::vector<std::string> extra_mpirun_args;  // after ours, before the node command
  bool verbose = false;                        // say what is launched, on stderr
  // When set, mpirun's standard output comes through a pipe, line by line: a line is printed on
  // ours when the filter returns true (ncp2 takes node 0's status line out of it).
  std::function<bool(std::string_view line)> stdout_filter;
};

// One line of an Open MPI hostfile: `host [slots=N] [max_slots=N]`; 0 means not given.
struct HostEntry {
  std::string host;
  int slots = 0;
  int max_slots = 0;
};

struct Hostfile {
  std::string path;
  std::vector<HostEntry> hosts;

  // Slots the file lists; a host without slots= counts as one (Open MPI counts that host's cores,
  // which cannot be seen from here: we may then pass --oversubscribe needlessly, which is harmless).
  int listed_slots() const;
  // The most processes Open MPI will place even with --oversubscribe; nullopt when unlimited.
  std::optional<int> max_processes() const;
};

// Throws LaunchError naming the path and line on a bad line; `path` is only for messages.
Hostfile parse_hostfile(std::string_view text, const std::string& path);
// Throws LaunchError (path and reason) when the file is missing, unreadable or lists no host.
Hostfile read_hostfile(const std::string& path);

// What the mpirun command depends on besides the launch itself (a parameter, so tests are exact).
struct MpiEnvironment {
  std::string mpirun = "mpirun";     // resolved path, argv[0]
  int cores = 1;                     // here; cores, not hyper-threads (what Open MPI counts as slots)
  bool root = false;                 // geteuid() == 0
  bool slurm_allocation = false;     // SLURM_JOB_ID set: mpirun takes the hosts from Slurm
  std::optional<int> slurm_slots;    // the allocation's tasks (SLURM_TASKS_PER_NODE): mpirun's slots
  std::optional<Hostfile> hostfile;  // read_hostfile(launch.hostfile) when one is given
};

// This machine's environment for `launch`: cores, root, Slurm, the hostfile read (LaunchError when
// bad), mpirun found (find_mpirun). Also checks the node count against the hostfile's limits.
MpiEnvironment detect_environment(const MpiLaunch& launch);

// Slurm's SLURM_TASKS_PER_NODE ("2(x3),1": 2 tasks on each of 3 nodes, then 1) summed: the slots
// Open MPI's mpirun counts in an allocation. Nullopt when it does not parse.
std::optional<int> slurm_task_slots(std::string_view tasks_per_node);

// The executable `name` on PATH (a directory's file that we may execute), "" when none: mpirun,
// a node command, Slurm's sbatch (`ncp2 sweep --slurm`).
std::string search_path(const std::string& name);

// Finds mpirun: `explicit_path` if given, else $NCP2_MPIRUN, else mpirun on $PATH; checks it is
// Open MPI (`--version`). Throws LaunchError saying what to install or set.
std::string find_mpirun(const std::string& explicit_path);

// The full mpirun command line (argv[0] is env.mpirun). Pure.
std::vector<std::string> mpirun_argv(const MpiLaunch& launch, const MpiEnvironment& env);
// Variables set in mpirun's environment only (the launch's own plus the run-as-root consent).
std::vector<EnvironmentEntry> mpirun_environment(const MpiLaunch& launch, const MpiEnvironment& env);

// Splits an --mpirun-args value like a simple shell: blanks separate words, '...' and "..." quote,
// backslash escapes one character. Throws LaunchError on an unterminated quote.
std::vector<std::string> split_shell_words(std::string_view text);

// Runs mpirun for `launch` and waits. SIGINT/SIGTERM sent to this process are forwarded to mpirun
// (which forwards them to the ranks). Returns mpirun's exit status, 128+signal if it was killed.
// Throws LaunchError when it cannot start (see detect_environment; a local node command missing).
int run_mpirun(const MpiLaunch& launch);

}  // namespace ncp2::real
