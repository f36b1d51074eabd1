// SOR emulated vs native (issue 5's performance goal): the wall time of the sor workload's timed
// body in the emulator (Kernel::run from the start to the last node's exit, without the
// verification) against the wall time of its own sequential reference computation
// (workloads::sor_sequential, the function the verification calls), both measured in this run.
// Goal: emulated <= 1.2 x native. Usage:
//   ncp2_bench_sor_speed [--preset paper] [--repeat 3] [--param k=v]...
// Prints, per machine and node count, the best and worst wall times of `repeat` runs and the
// ratio of the bests.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dsm/process.hpp"
#include "dsm/runtime.hpp"
#include "emulator/cluster.hpp"
#include "workloads/registry.hpp"
#include "workloads/sor.hpp"

namespace {

using namespace ncp2;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Timing {
  double best = 1e300;
  double worst = 0;
  void add(double s) {
    best = std::min(best, s);
    worst = std::max(worst, s);
  }
};

// The timed body only: the same machinery as run_workload, without the verification.
double emulated_seconds(emu::MachineKind kind, int nodes, const workloads::Params& params) {
  dsm::SystemConfig config = dsm::default_config(kind);
  config.machine.nodes = nodes;
  const auto& w = workloads::find_workload("sor");
  w.check(params, nodes);
  const auto instance = w.make(params, nodes, 1);
  emu::Kernel kernel;
  emu::Cluster cluster(kernel, config);
  dsm::Runtime runtime(kernel, cluster, config);
  const auto start = Clock::now();
  runtime.start([&instance](dsm::Process& p) { instance->run(p); });
  const emu::RunResult result = kernel.run();
  const double s = seconds_since(start);
  if (result.status != emu::RunStatus::Completed) {
    fmt::print(stderr, "sor-speed: the emulated run did not complete: {}\n", result.diagnosis);
    std::exit(1);
  }
  return s;
}

double native_seconds(const workloads::SorProblem& problem) {
  const auto start = Clock::now();
  const std::vector<float> grid = workloads::sor_sequential(problem, 1);
  const double s = seconds_since(start);
  volatile float sink = grid[grid.size() / 2];  // keep the computation
  (void)sink;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "paper";
  int repeat = 3;
  std::vector<std::string> assignments;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--preset" && i + 1 < argc) {
      preset = argv[++i];
    } else if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--param" && i + 1 < argc) {
      assignments.emplace_back(argv[++i]);
    } else {
      fmt::print(stderr, "usage: {} [--preset NAME] [--repeat N] [--param k=v]...\n", argv[0]);
      return 2;
    }
  }
  try {
    const auto& w = workloads::find_workload("sor");
    const workloads::Params params = w.resolve(preset, assignments);
    const workloads::SorProblem problem{.rows = static_cast<std::size_t>(params.integer("rows")),
                                        .cols = static_cast<std::size_t>(params.integer("cols")),
                                        .iterations = params.integer("iterations"),
                                        .zero_interior = params.text("interior") == "zero",
                                        .omega = static_cast<float>(params.real("omega"))};
    fmt::print("sor {} ({}), best and worst of {} runs; goal: emulated <= 1.2 x native\n", preset,
               params.describe(), repeat);
    fmt::print("{:<11} {:>5} {:>17} {:>17} {:>7}\n", "machine", "nodes", "native s", "emulated s", "ratio");
    for (const auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
      for (const int nodes : {1, 8}) {
        Timing native, emulated;
        for (int r = 0; r < repeat; ++r) {  // interleaved, so a disturbance hits both
          native.add(native_seconds(problem));
          emulated.add(emulated_seconds(kind, nodes, params));
        }
        const double ratio = emulated.best / native.best;
        fmt::print("{:<11} {:>5} {:>8.3f}..{:<8.3f} {:>8.3f}..{:<8.3f} {:>6.2f}x {}\n", emu::to_string(kind),
                   nodes, native.best, native.worst, emulated.best, emulated.worst, ratio,
                   ratio <= 1.2 ? "PASS" : "ABOVE GOAL");
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "sor-speed: {}\n", e.what());
    return 2;
  }
  return 0;
}
