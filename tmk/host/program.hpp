#pragma once
// A TreadMarks-API program built with ncp2-cc, run as a workload of the emulator: one process of
// the program per emulated node (tmk/host/node_process.hpp), or one copy of it on a fiber per node
// (tmk/host/node_fiber.hpp), each driven by its node's PP fiber.
// Every Tmk call and access fault of a node is run by the DSM runtime at the node's virtual time;
// the computation between them is charged from the instructions the program executed
// (cost.instruction cycles each). docs/tmk-programs.md.
#include <string>
#include <vector>

#include "workloads/workload.hpp"

namespace ncp2::tmk {

// How a program's nodes run: a copy of the program on a fiber each, inside the emulator's process
// (node_fiber.hpp; issue 45), or a process each (node_process.hpp). Auto, the default: fibers when
// the executable carries the fiber object ncp2-cc embeds, else processes (a program linked without
// it: ncp2-cc --ncp2-no-fiber, a non-PIC library, a CMake build with find_package(ncp2)).
enum class Runner { Auto, Process, Fiber };

struct ProgramSpec {
  std::string path;               // the executable, as the user gave it
  std::vector<std::string> args;  // its arguments (after `--`)
  std::string output_dir;         // empty: each node's output on ours, lines prefixed "[node N] "
  // The run detects data races: the program must be built with ncp2-cc --ncp2-races.
  bool detect_races = false;
  Runner runner = Runner::Auto;
};

// True when `name` names a program rather than a built-in workload: it contains a '/' or is an
// existing file.
bool looks_like_program(const std::string& name);

// The workload running `spec`. Throws workloads::WorkloadError when the program cannot be run
// (missing, not executable, output directory missing, built without race checks when
// spec.detect_races). With race detection on (dsm::Runtime::enable_race_detection before the run)
// the nodes' accesses go to the detector before each of their requests, so every access made
// before a synchronization, the exit or a failure is in it before anyone calls finish().
workloads::Workload program_workload(const ProgramSpec& spec);

}  // namespace ncp2::tmk
