// tmk_race_probe [--off] PROGRAM NODES [ARGS...]: runs a program built with ncp2-cc on the
// emulator with race detection on (--off: off), as `ncp2 run --detect-races` does, and prints the
// virtual time and what the detector found:
//   status completed
//   time 274727288
//   races 1 pairs 1
//   race 'shared heap' offset 4 address 0x5a0000000004: node 0 writes racy.c:13 | node 1 writes racy.c:13
// For tests/tmk/race_checks_test.sh: the program path (tmk/host) into the detector without the CLI.
// Exit status: 0 when the run completed, 1 when it did not, 2 when the program cannot run.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dsm/process.hpp"
#include "dsm/runtime.hpp"
#include "emulator/cluster.hpp"
#include "emulator/kernel.hpp"
#include "tmk/host/program.hpp"

namespace {

using namespace ncp2;

std::string side(const dsm::RaceDetector::Access& a, const workloads::Instance& work) {
  const auto place = work.describe_access(a.site);
  const std::string file = place.file.substr(place.file.find_last_of('/') + 1);
  return fmt::format("node {} {} {}:{}", emu::index(a.node), a.writes ? "writes" : "reads",
                     file.empty() ? "?" : file, place.line);
}

int probe(bool detect, const std::string& program, int nodes, std::vector<std::string> args) {
  tmk::ProgramSpec spec{program, std::move(args), {}, detect};
  workloads::Workload w;
  try {
    w = tmk::program_workload(spec);
  } catch (const workloads::WorkloadError& e) {
    fmt::print("invalid: {}\n", e.what());
    return 2;
  }
  dsm::SystemConfig config = dsm::default_config(emu::MachineKind::Ncp2);
  config.machine.nodes = nodes;
  emu::KernelOptions options;
  options.fiber_stack_bytes = config.emulator.fiber_stack_bytes();
  emu::Kernel kernel(options);
  emu::Cluster cluster(kernel, config);
  dsm::Runtime runtime(kernel, cluster, config);
  if (detect) runtime.enable_race_detection();
  auto work = w.make(w.defaults(), nodes, 1);
  std::string status = "completed";
  try {
    runtime.start([&work](dsm::Process& p) { work->run(p); }, {});
    const emu::RunResult r = kernel.run();
    if (r.status != emu::RunStatus::Completed) status = fmt::format("stopped: {}", r.diagnosis);
  } catch (const std::exception& e) {
    status = fmt::format("failed: {}", e.what());
  }
  fmt::print("status {}\ntime {}\n", status, emu::to_ps(runtime.timed_end()));
  if (!detect) return status == "completed" ? 0 : 1;
  dsm::RaceDetector& detector = *runtime.race_detector();
  detector.finish();  // what the runner does after the run
  fmt::print("races {} pairs {}\n", detector.races().size(), detector.race_pairs());
  const std::uint32_t first = runtime.regions().empty() ? 0 : runtime.regions().front().first_page;
  const auto page_bytes = static_cast<std::uint64_t>(config.memory.page_size);
  for (const auto& race : detector.races()) {
    const std::uint64_t offset = std::uint64_t{dsm::raw(race.page) - first} * page_bytes + race.offset;
    const auto address = work->program_address(runtime, 0, offset);
    fmt::print("race '{}' offset {} address {:#x}: {} | {}\n", runtime.regions().front().name, offset,
               address.value_or(0), side(race.first, *work), side(race.second, *work));
  }
  return status == "completed" ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool detect = !(argc > 1 && std::string(argv[1]) == "--off");
  const int first = detect ? 1 : 2;
  if (argc < first + 2) {
    std::fprintf(stderr, "usage: tmk_race_probe [--off] PROGRAM NODES [ARGS...]\n");
    return 2;
  }
  return probe(detect, argv[first], std::atoi(argv[first + 1]),
               std::vector<std::string>(argv + first + 2, argv + argc));
}
