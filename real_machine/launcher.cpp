// The mpirun command of a real run: hostfiles, finding and checking mpirun, the command line.
// Running it (fork/exec, signals) is in launcher_run.cpp.
#include "real_machine/launcher.hpp"
#include "real_machine/subprocess.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ncp2::real {
namespace {

constexpr std::string_view kInstallHint =
    "install Open MPI (Debian/Ubuntu: apt-get install openmpi-bin), or set NCP2_MPIRUN to its "
    "mpirun, or put that mpirun on PATH";

std::vector<std::string> split_blanks(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

int parse_count(std::string_view value, const std::string& where) {
  int n = 0;
  const auto* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (ec != std::errc{} || ptr != end || n < 1)
    throw LaunchError(where + ": '" + std::string(value) + "' is not a positive count");
  return n;
}

// One `key=N` of a hostfile line, into `entry`.
void parse_setting(const std::string& word, const std::string& where, HostEntry& entry) {
  const auto eq = word.find('=');
  if (eq == std::string::npos)
    throw LaunchError(where + ": expected 'host [slots=N] [max_slots=N]', got '" + word + "'");
  const std::string key = word.substr(0, eq);
  const int n = parse_count(std::string_view(word).substr(eq + 1), where);
  // Open MPI also accepts these spellings (count= and cpu= are old names of slots=).
  if (key == "slots" || key == "count" || key == "cpu")
    entry.slots = n;
  else if (key == "max_slots" || key == "max-slots")
    entry.max_slots = n;
  else
    throw LaunchError(where + ": unknown setting '" + key + "' (slots= and max_slots= are known)");
}

HostEntry parse_host_line(const std::vector<std::string>& words, const std::string& where) {
  HostEntry entry;
  entry.host = words.front();
  for (std::size_t i = 1; i < words.size(); ++i) parse_setting(words[i], where, entry);
  return entry;
}

// Sets errno when not (ENOENT, EACCES; EISDIR for a directory).
bool is_executable_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  if (!S_ISREG(st.st_mode)) {
    errno = EISDIR;
    return false;
  }
  return access(path.c_str(), X_OK) == 0;
}

void check_open_mpi(const std::string& mpirun) {
  const std::string version = run_command({mpirun, "--version"}).output;
  if (version.find("Open MPI") != std::string::npos || version.find("OpenRTE") != std::string::npos) return;
  const std::string first_line = version.substr(0, version.find('\n'));
  const bool hydra = version.find("HYDRA") != std::string::npos || version.find("MPICH") != std::string::npos;
  throw LaunchError(mpirun + " is " + (hydra ? "MPICH's mpirun (Hydra)" : "not Open MPI's mpirun") +
                    (first_line.empty() ? "" : " ('" + first_line + "')") +
                    ": only Open MPI is supported, because the launch uses its options (--bind-to, "
                    "--oversubscribe, -x, --hostfile syntax) and the agents read its OMPI_* "
                    "variables; " +
                    std::string(kInstallHint));
}

// The cores (not hardware threads) this process may run on: Open MPI's default slot count here,
// so hyper-threads must not count. The CPUs allowed when the topology cannot be read.
int physical_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 1;
  std::set<std::pair<std::string, std::string>> cores;  // (package, core)
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream package(topology + "physical_package_id");
    std::ifstream core(topology + "core_id");
    std::pair<std::string, std::string> id;
    if (!(package >> id.first) || !(core >> id.second)) return std::max(1, CPU_COUNT(&allowed));
    cores.insert(id);
  }
  return std::max(1, static_cast<int>(cores.size()));
}

}  // namespace

std::string search_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = dir.empty() ? "." : dir;
    candidate += "/";
    candidate += name;
    if (is_executable_file(candidate)) return candidate;
  }
  return {};
}

int Hostfile::listed_slots() const {
  int total = 0;
  for (const auto& h : hosts) total += h.slots > 0 ? h.slots : 1;
  return total;
}

std::optional<int> Hostfile::max_processes() const {
  int total = 0;
  for (const auto& h : hosts) {
    if (h.max_slots == 0) return std::nullopt;
    total += h.max_slots;
  }
  return total;
}

Hostfile parse_hostfile(std::string_view text, const std::string& path) {
  Hostfile file;
  file.path = path;
  std::istringstream in{std::string(text)};
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto words = split_blanks(line.substr(0, line.find('#')));
    if (words.empty()) continue;
    file.hosts.push_back(parse_host_line(words, "hostfile " + path + " line " + std::to_string(number)));
  }
  return file;
}

Hostfile read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw LaunchError("cannot read hostfile " + path + ": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw LaunchError("cannot read hostfile " + path + ": " + std::strerror(errno));
  Hostfile file = parse_hostfile(text.str(), path);
  if (file.hosts.empty()) throw LaunchError("hostfile " + path + " lists no host");
  return file;
}

std::string find_mpirun(const std::string& explicit_path) {
  std::string path = explicit_path;
  std::string origin = "the mpirun given";
  if (path.empty()) {
    if (const char* env = std::getenv("NCP2_MPIRUN"); env != nullptr && *env != '\0') {
      path = env;
      origin = "NCP2_MPIRUN";
    }
  }
  if (path.empty()) {
    path = search_path("mpirun");
    if (path.empty())
      throw LaunchError("no mpirun on PATH (real runs need Open MPI): " + std::string(kInstallHint));
  } else if (path.find('/') == std::string::npos) {
    const std::string found = search_path(path);
    if (found.empty())
      throw LaunchError(origin + " (" + path + ") is not on PATH: " + std::string(kInstallHint));
    path = found;
  } else if (!is_executable_file(path)) {
    throw LaunchError(origin + " (" + path + ") is not an executable file: " + std::strerror(errno) + "; " +
                      std::string(kInstallHint));
  }
  check_open_mpi(path);
  return path;
}

std::vector<std::string> mpirun_argv(const MpiLaunch& launch, const MpiEnvironment& env) {
  std::vector<std::string> argv{env.mpirun, "-np", std::to_string(launch.nodes)};
  bool oversubscribe = false;
  if (env.hostfile) {
    oversubscribe = env.hostfile->listed_slots() < launch.nodes;
  } else {
    // Inside a Slurm allocation mpirun counts the allocated slots itself: adding --oversubscribe
    // there would hide a too-small allocation behind ranks crowding its first node.
    oversubscribe = !env.slurm_allocation && launch.nodes > env.cores;
  }
  // Placement (docs/real-machine.md, issue 42): on this machine with a core per node, each node's
  // agent and program are bound to its core and take turns on it, as a TreadMarks node's handler
  // and program do; measured faster and steadier than unbound (2 nodes: lock 32 vs 47-54 us,
  // jacobi's spread 3 % vs 25 %). With more nodes than cores (or on other hosts, where the slots
  // are not known to be cores) unbound: Open MPI refuses to bind more ranks than cores. Unless the
  // user chose (Open MPI refuses a repeated --bind-to).
  const bool user_binds = std::any_of(launch.extra_mpirun_args.begin(), launch.extra_mpirun_args.end(),
                                      [](const std::string& a) { return a.starts_with("--bind-to"); });
  const bool one_core_each = !env.hostfile && !env.slurm_allocation && !oversubscribe;
  if (!user_binds) argv.insert(argv.end(), {"--bind-to", one_core_each ? "core" : "none"});
  if (env.hostfile) argv.insert(argv.end(), {"--hostfile", env.hostfile->path});
  if (oversubscribe) argv.emplace_back("--oversubscribe");
  // -x NAME exports the value mpirun has (set by run_mpirun): no value on the command line.
  for (const auto& entry : launch.environment) argv.insert(argv.end(), {"-x", entry.first});
  argv.insert(argv.end(), launch.extra_mpirun_args.begin(), launch.extra_mpirun_args.end());
  argv.insert(argv.end(), launch.node_command.begin(), launch.node_command.end());
  return argv;
}

std::vector<EnvironmentEntry> mpirun_environment(const MpiLaunch& launch, const MpiEnvironment& env) {
  std::vector<EnvironmentEntry> vars = launch.environment;
  // Open MPI refuses root unless both are set; for mpirun only, not this process.
  if (env.root)
    vars.insert(vars.end(), {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}});
  return vars;
}

MpiEnvironment detect_environment(const MpiLaunch& launch) {
  if (launch.nodes < 1) throw LaunchError("a real run needs at least one node");
  if (launch.node_command.empty()) throw LaunchError("no node command to launch");
  MpiEnvironment env;
  env.cores = physical_cores();
  env.root = geteuid() == 0;
  const char* job = std::getenv("SLURM_JOB_ID");
  env.slurm_allocation = job != nullptr && *job != '\0';
  if (const char* tasks = std::getenv("SLURM_TASKS_PER_NODE"); env.slurm_allocation && tasks != nullptr)
    env.slurm_slots = slurm_task_slots(tasks);
  // mpirun refuses more ranks than the allocation's tasks, and its refusal would read as a failed
  // run: said here, before anything starts (unless the user's own mpirun options place the ranks).
  const auto places_ranks = [](const std::string& a) {
    return a == "--oversubscribe" || a == "-H" || a.starts_with("--host") || a.starts_with("--machinefile");
  };
  if (launch.hostfile.empty() && env.slurm_slots && *env.slurm_slots < launch.nodes &&
      std::none_of(launch.extra_mpirun_args.begin(), launch.extra_mpirun_args.end(), places_ranks))
    throw LaunchError(
        "the Slurm allocation (job " + std::string(job) + ") has " + std::to_string(*env.slurm_slots) +
        " task slot(s) for mpirun (SLURM_TASKS_PER_NODE=" + std::getenv("SLURM_TASKS_PER_NODE") + ") and " +
        std::to_string(launch.nodes) + " nodes were asked for: allocate a task per node (" + "salloc -n " +
        std::to_string(launch.nodes) + ", sbatch --ntasks=" + std::to_string(launch.nodes) +
        "), or --mpirun-args --oversubscribe");
  if (!launch.hostfile.empty()) {
    env.hostfile = read_hostfile(launch.hostfile);
    if (const auto most = env.hostfile->max_processes(); most && *most < launch.nodes)
      throw LaunchError("hostfile " + launch.hostfile + " allows at most " + std::to_string(*most) +
                        " processes (max_slots), but " + std::to_string(launch.nodes) +
                        " nodes were asked for");
  }
  // Every rank runs here: a missing agent is said now, not as mpirun's error on each rank.
  if (!env.hostfile && !env.slurm_allocation) {
    const std::string& program = launch.node_command.front();
    if (program.find('/') == std::string::npos) {
      if (search_path(program).empty()) throw LaunchError("the node command " + program + " is not on PATH");
    } else if (!is_executable_file(program)) {
      throw LaunchError("cannot run the node command " + program + ": " + std::strerror(errno));
    }
  }
  env.mpirun = find_mpirun(launch.mpirun);
  return env;
}

std::optional<int> slurm_task_slots(std::string_view tasks_per_node) {
  int total = 0;
  for (std::string_view rest = tasks_per_node; !rest.empty();) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    int tasks = 0, nodes = 1;
    const char* end = item.data() + item.size();
    auto [at, error] = std::from_chars(item.data(), end, tasks);
    if (error != std::errc{} || tasks < 0) return std::nullopt;
    if (at != end) {  // "N(xM)"
      if (!std::string_view(at, static_cast<std::size_t>(end - at)).starts_with("(x") || end[-1] != ')')
        return std::nullopt;
      const auto [count_end, count_error] = std::from_chars(at + 2, end - 1, nodes);
      if (count_error != std::errc{} || count_end != end - 1 || nodes < 1) return std::nullopt;
    }
    total += tasks * nodes;
  }
  if (total < 1) return std::nullopt;
  return total;
}

std::vector<std::string> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = '\0';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != '\0') {
      if (c == quote) {
        quote = '\0';
      } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
        word += text[++i];
      } else {
        word += c;
      }
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::exchange(word, {}));
      in_word = false;
    } else {
      in_word = true;
      if (c == '\'' || c == '"')
        quote = c;
      else if (c == '\\' && i + 1 < text.size())
        word += text[++i];
      else
        word += c;
    }
  }
  if (quote != '\0')
    throw LaunchError(std::string("unterminated ") + quote + " in '" + std::string(text) + "'");
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace ncp2::real
