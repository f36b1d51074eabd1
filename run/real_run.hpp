#pragma once
// A real run (real_run.cpp): a program built with ncp2-cc on real processes, one per node, started
// by Open MPI's mpirun — the real machine's pipeline, beside the emulated one (run_session.hpp).
// `ncp2 run ./prog --machine real` takes it; calibrate and validate check with it first.
#include <optional>
#include <string>
#include <vector>

#include "dsm/config.hpp"

namespace ncp2::run {

struct RealRun {
  std::string program;
  std::vector<std::string> args;
  int nodes = 1;
  dsm::SystemConfig config;  // tmk.heap_mb, memory.page_size, tmk.sample_instructions; stored with the run
  std::string hostfile;
  std::vector<std::string> mpirun_args;
  std::string db;
  bool force = false;
  std::size_t max_wait_rows = 5'000'000;
  std::size_t max_timeline = 1'000'000;
  std::string node_output;
  double max_wall_s = 0;  // --max-wall: node 0 stops the run and names each node's place (0: none)
};

// Why a real run of `nodes` processes cannot start here (no Open MPI mpirun, a wrong hostfile line,
// more nodes than the hostfile allows, ncp2-node missing, an unbalanced quote in --mpirun-args), in
// the user's words; nullopt when it can. For commands that start many runs (calibrate, validate):
// they refuse before the first one.
std::optional<std::string> real_launch_problem(int nodes, const std::string& hostfile,
                                               const std::vector<std::string>& mpirun_args);

// Why `program` cannot run on real processes (not a program built with ncp2-cc: `not_a_program`, a
// sentence about it; a program that is missing or not executable, an output folder that cannot be
// made), in the user's words; nullopt when it can. Shared by run --machine real and validate.
std::optional<std::string> program_problem(const std::string& program, const std::vector<std::string>& args,
                                           const std::string& node_output, const std::string& not_a_program);

// Exit codes as for an emulated run: 0 verified, 1 failed or not verified, 2 usage, 3 deadlock,
// 5 stopped at --max-wall.
int run_real_machine(const RealRun& run);

}  // namespace ncp2::run
