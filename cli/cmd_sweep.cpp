// `ncp2 sweep WORKLOAD|./prog --nodes 1,2,4 [--machine ncp2,treadmarks] [--set KEY=V1,V2]... -j N
// --out DIR`: the grid of runs on this host's cores, gathered into DIR/sweep.db, resumable
// (sweep/sweep_run.hpp; docs/sweeps.md).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "carnival/store_error.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "cli/stop_signals.hpp"
#include "cli/sweep_checks.hpp"
#include "real_machine/subprocess.hpp"
#include "sweep/gather.hpp"
#include "sweep/local_executor.hpp"
#include "sweep/slurm.hpp"
#include "sweep/sweep_folder.hpp"
#include "sweep/sweep_plots.hpp"
#include "sweep/sweep_report.hpp"
#include "sweep/sweep_run.hpp"

namespace ncp2::cli {

namespace {

namespace fs = std::filesystem;

// The most points at once that -j takes: far beyond any host's cores, far below the processes and
// open files a host allows.
constexpr std::uint64_t kMaxJobs = 1024;

struct SweepCommand {
  SweepRequest request;
  std::size_t jobs = 0;  // 0: the cores this process may use
  std::string out;
  bool json = false;
  bool csv = false;
  bool force = false;
  std::string progress = "auto";
  bool slurm = false;                    // --slurm: the points as a Slurm job array
  std::vector<std::string> sbatch_args;  // --sbatch-arg, in order
};

// The sweep's command as the sweep table keeps it: what defines the sweep, not -j or the output format.
std::string command_text(const SweepCommand& o, const sweep::SweepSpec& spec) {
  const SweepRequest& r = o.request;
  std::vector<std::string> words = {"ncp2", "sweep", r.target, "--nodes", r.nodes};
  if (r.machines) words.insert(words.end(), {"--machine", *r.machines});
  for (const std::string& set : r.sets) words.insert(words.end(), {"--set", set});
  words.insert(words.end(), spec.run_options.begin(), spec.run_options.end());
  words.insert(words.end(), {"--out", o.out});
  if (!r.program_args.empty()) {
    words.emplace_back("--");
    words.insert(words.end(), r.program_args.begin(), r.program_args.end());
  }
  return real::command_line_text(words);
}

std::string clock_text(double seconds) {
  const long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

// The progress line on stderr: rewritten in place on a terminal, a line per change elsewhere.
class SweepProgressLine {
 public:
  SweepProgressLine(bool on, bool terminal) : on_(on), terminal_(terminal) {}
  void update(const sweep::SweepProgress& p) {
    if (!on_) return;
    const std::string counts =
        fmt::format("{}/{} done, {} failed, {} running", p.done, p.total, p.failed, p.running);
    const std::string left = p.left_s ? fmt::format(", ~{} left", clock_text(*p.left_s)) : "";
    if (terminal_) {
      fmt::print(stderr, "\r\033[Ksweep  {}  {} elapsed{}", counts, clock_text(p.elapsed_s), left);
      shown_ = true;
    } else if (counts != last_) {
      fmt::print(stderr, "progress  {}  {} elapsed{}\n", counts, clock_text(p.elapsed_s), left);
    }
    last_ = counts;
    std::fflush(stderr);
  }
  void finish() {
    if (shown_) fmt::print(stderr, "\r\033[K");
    shown_ = false;
    std::fflush(stderr);
  }

 private:
  bool on_;
  bool terminal_;
  bool shown_ = false;
  std::string last_;
};

int print_results(const SweepCommand& o, const sweep::SweepOutcome& outcome) {
  const auto format = o.json  ? sweep::ReportFormat::Json
                      : o.csv ? sweep::ReportFormat::Csv
                              : sweep::ReportFormat::Text;
  fmt::print("{}", sweep::render_points(outcome, format));
  std::fflush(stdout);
  // Beside JSON or CSV, the summary goes to stderr: stdout stays one document.
  std::FILE* summary = format == sweep::ReportFormat::Text ? stdout : stderr;
  fmt::print(summary, "{}", sweep::summary_text(outcome));
  std::size_t failed = 0;
  std::size_t not_run = 0;
  for (const sweep::PointRecord& r : outcome.records) {
    failed += r.status == sweep::PointStatus::Failed ? 1 : 0;
    not_run += r.status == sweep::PointStatus::NotRun ? 1 : 0;
  }
  if (outcome.interrupted) {
    fmt::print(
        stderr,
        "ncp2: the sweep was interrupted: the points done are kept in {}; run the same command again to "
        "run the rest\n",
        o.out);
    return kExitFailure;
  }
  if (failed > 0) fmt::print(stderr, "ncp2: {} point(s) failed (above, with their logs)\n", failed);
  if (not_run > 0)
    fmt::print(stderr, "ncp2: {} point(s) did not run; run the same command again to run them\n", not_run);
  return failed + not_run > 0 ? kExitFailure : kExitOk;
}

// Where the points run: here, -j at a time, or on Slurm (--slurm; sweep/slurm.hpp). Throws
// sweep::SlurmError when Slurm's commands are missing.
std::unique_ptr<sweep::PointExecutor> make_executor(const SweepCommand& o, const sweep::SweepSpec& spec,
                                                    const std::string& out_dir) {
  if (!o.slurm)
    return std::make_unique<sweep::LocalExecutor>(o.jobs > 0 ? static_cast<int>(o.jobs)
                                                             : sweep::available_cores());
  sweep::check_slurm_commands();
  sweep::SlurmOptions slurm;
  slurm.sweep_dir = out_dir;
  slurm.sbatch_args = o.sbatch_args;
  // After an earlier submission was waited for, what it completed is not submitted again.
  slurm.is_complete = [points = sweep::expand_grid(spec), out_dir](std::size_t i) {
    return i < points.size() && sweep::point_complete(out_dir, points[i]);
  };
  return std::make_unique<sweep::SlurmExecutor>(std::move(slurm), std::cerr);
}

// The sweep's plots (docs/sweeps.md), from what sweep.db holds now (an interrupted sweep's points
// too). A plot that cannot be drawn loses nothing: the databases are written; it is said, not fatal.
void write_plots(const std::string& out_dir) {
  try {
    const std::vector<std::string> files = sweep::write_sweep_plots(out_dir);
    if (!files.empty()) fmt::print(stderr, "ncp2: plots: {}\n", fmt::join(files, ", "));
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: note: the sweep's plots were not written: {}\n", e.what());
  }
}

int run_sweep_command(const SweepCommand& o) {
  if (o.json && o.csv) {
    fmt::print(stderr, "ncp2: sweep: choose one of --json and --csv\n");
    return kExitUsage;
  }
  sweep::SweepSpec spec;
  sweep::SweepOptions options;
  try {
    spec = build_sweep_spec(o.request);
    options.ncp2 = fs::read_symlink("/proc/self/exe").string();
  } catch (const sweep::GridError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  options.out_dir = fs::absolute(o.out).lexically_normal().string();
  while (options.out_dir.size() > 1 && options.out_dir.back() == '/') options.out_dir.pop_back();
  options.force = o.force;
  options.command = command_text(o, spec);
  std::unique_ptr<sweep::PointExecutor> executor;
  try {
    executor = make_executor(o, spec, options.out_dir);
  } catch (const sweep::SlurmError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  // With --slurm, Slurm's lines come between the sweep's: none is rewritten in place.
  const bool terminal = ::isatty(STDERR_FILENO) != 0 && !o.slurm;
  SweepProgressLine line(o.progress == "always" || (o.progress == "auto" && terminal), terminal);
  sweep::SweepObserver observer;
  observer.note = [&line](const std::string& note) {
    line.finish();
    fmt::print(stderr, "ncp2: note: {}\n", note);
  };
  observer.progress = [&line](const sweep::SweepProgress& p) { line.update(p); };
  const StopSignals signals;
  sweep::SweepOutcome outcome;
  try {
    outcome = sweep::run_sweep(spec, options, *executor, stop_requested(), observer);
  } catch (const sweep::GridError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  } catch (const sweep::FolderError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  } catch (const sweep::SlurmError& e) {  // nothing was submitted (sbatch refused the array)
    line.finish();
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  } catch (const carnival::StoreError& e) {
    line.finish();
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitFailure;
  }
  line.finish();
  write_plots(options.out_dir);
  return print_results(o, outcome);
}

// --slurm and --sbatch-arg (after -j, which --slurm excludes: the cluster decides what runs at once).
void add_slurm_options(CLI::App& cmd, SweepCommand& o) {
  CLI::Option* slurm = cmd.add_flag(
      "--slurm", o.slurm,
      "submit the points to Slurm as one job array (sbatch; a task per point) instead of running them here, "
      "follow them and gather them (docs/sweeps.md, On Slurm)");
  cmd.add_option("--sbatch-arg", o.sbatch_args,
                 "an sbatch option for the job array, e.g. --sbatch-arg=--time=10 --sbatch-arg=--partition=p "
                 "(repeatable; with --slurm)")
      ->type_name("ARG")
      ->allow_extra_args(false)
      ->needs(slurm);
  slurm->excludes(cmd.get_option("--jobs"));
}

}  // namespace

Subcommand add_sweep_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sweep",
      "Run a grid of runs (node counts x machines x --set values) of a workload or a program built with "
      "ncp2-cc, N at a time on this host's cores, into DIR: each point's CARNIVAL database and the sweep "
      "database DIR/sweep.db; resumable (the same command again runs what is missing). Exit 1 if a point "
      "failed or the sweep was interrupted. docs/sweeps.md");
  auto o = std::make_shared<SweepCommand>();
  SweepRequest& r = o->request;
  cmd->add_option("workload", r.target,
                  "the workload (see ncp2 workloads), or the path of a program built with ncp2-cc")
      ->required();
  cmd->add_option("args", r.program_args, "a program's arguments, after --")->type_name("ARGS");
  cmd->add_option("--nodes", r.nodes, "the node counts, e.g. 1,2,4,8,16")->type_name("LIST")->required();
  cmd->add_option("--machine", r.machines,
                  "the machines, e.g. ncp2,treadmarks (default: the configuration's)")
      ->type_name("LIST");
  cmd->add_option("--set", r.sets,
                  "a key and its values, e.g. --set network.link_latency=100ns,200ns (repeatable)")
      ->type_name("KEY=V1,V2,...")
      ->allow_extra_args(false);
  cmd->add_option("--config", r.config_file, "TOML file overriding the built-in defaults, for every point");
  cmd->add_option("--param", r.params,
                  "a workload parameter for every point, e.g. --param n=4096 (repeatable)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--preset", r.preset, "a named parameter set (small, paper) for every point");
  cmd->add_option("--seed", r.seed, "seed of the workload's initial data, for every point")
      ->check(whole_number(0, UINT64_MAX));
  add_time_model_options(*cmd, r.time_model);
  cmd->add_option("-j,--jobs", o->jobs, "points run at once (default: the cores this process may use)")
      ->check(whole_number(1, kMaxJobs));
  cmd->add_option("--out", o->out,
                  "the sweep's folder: points/ (each point's database, JSON, log) and sweep.db")
      ->type_name("DIR")
      ->required();
  add_slurm_options(*cmd, *o);
  cmd->add_flag("--json", o->json, "the points as JSON on stdout instead of the table");
  cmd->add_flag("--csv", o->csv, "the points as CSV on stdout instead of the table");
  cmd->add_flag("--force", o->force,
                "start afresh in a folder that holds another sweep (its files are removed)");
  cmd->add_option("--progress", o->progress, "progress line on stderr: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->footer(
      "The points run as `ncp2 run` subprocesses of this very executable, each writing\n"
      "DIR/points/NAME.db, .json and .log. Ctrl-C stops the running points, keeps the finished ones and\n"
      "marks the rest 'not run' in DIR/sweep.db: run the same command again to resume. A folder holding\n"
      "another sweep (another target, arguments, grid or options) needs --force.");
  return {cmd, [o] { return run_sweep_command(*o); }};
}

}  // namespace ncp2::cli
