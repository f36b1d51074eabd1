// Benchmarks of the emulator's hot paths (Google Benchmark):
//   BM_EmptyEvents/P          events per second of the kernel loop with P events pending
//                             (classic "hold" model: each event schedules one new event)
//   BM_FiberWake              a Processor fiber looping on wait(), woken by an event chain
//   BM_FiberResume            a raw Kernel::spawn fiber: resume_at + suspend_current
//   BM_BarrierMessages/N      run_traffic(Barrier) on the ncp2 machine, messages per second
//   BM_BarrierMessagesTreadMarks/N   the same on the treadmarks machine
//   BM_PingPongMessages       run_traffic(PingPong) on the ncp2 machine, messages per second
// Every rate is against wall-clock time (UseRealTime).
//
// The same executable has a dedicated mode used by bench/compare-simgrid, which runs one
// pattern once (or best of --repeat) and prints one parseable line:
//   ncp2_bench_emulator --traffic=barrier|pingpong --nodes=N --rounds=R
//                       [--machine=ncp2|treadmarks] [--repeat=K]
//   -> ours pattern=barrier machine=ncp2 nodes=8 rounds=R messages=M wall_s=X msgs_per_s=Y sim_s=Z
//      events_per_message=E (kernel events over messages: the floor argument of docs/performance.md)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "emulator/config.hpp"
#include "emulator/kernel.hpp"
#include "emulator/memory_bus.hpp"
#include "emulator/processor.hpp"
#include "emulator/time.hpp"
#include "emulator/traffic_patterns.hpp"

namespace {

using namespace ncp2::emu;
using namespace ncp2::emu::literals;

// Events (or wakes) processed per benchmark iteration: the kernel runs in chunks of this size,
// stopped by the event that completes the chunk, so Kernel::run()'s own overhead is amortized.
constexpr std::uint64_t kChunk = 1 << 16;

// Reports `per_iteration` items per iteration as the wall time per item (an inverted rate, in
// seconds; the console shows it with an SI prefix, e.g. "62.5n" for 62.5 ns).
benchmark::Counter time_per_item(std::uint64_t per_iteration) {
  return {static_cast<double>(per_iteration),
          benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert};
}

// xorshift64*: cheap, deterministic, good enough for event delays.
std::uint64_t next_random(std::uint64_t& s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 0x2545F4914F6CDD1DULL;
}

// ---------------------------------------------------------------------------------------------
// Empty events at a constant queue size (hold model)

constexpr std::int64_t kMaxDelayPs = 1'000'000;  // delays uniform in [1 ps, 1 us]

struct HoldModel {
  Kernel* kernel = nullptr;
  std::uint64_t rng = 0x9E3779B97F4A7C15ULL;
  std::uint64_t count = 0;
  std::uint64_t stop_at = 0;
};

struct HoldEvent {
  HoldModel* model;
  void operator()() const;
};

void HoldEvent::operator()() const {
  HoldModel& m = *model;
  const auto delay = 1 + static_cast<std::int64_t>(next_random(m.rng) % kMaxDelayPs);
  m.kernel->at(m.kernel->now() + picoseconds(delay), HoldEvent{model});
  if (++m.count == m.stop_at) m.kernel->stop();
}

void BM_EmptyEvents(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  Kernel kernel;
  HoldModel model;
  model.kernel = &kernel;
  for (std::size_t i = 0; i < pending; ++i)
    kernel.at(at_ps(static_cast<std::int64_t>(next_random(model.rng) % kMaxDelayPs)), HoldEvent{&model});
  // Warm-up chunk: the heap reaches its steady shape and the caches their steady state.
  model.stop_at = kChunk;
  kernel.run();
  for (auto _ : state) {
    model.stop_at += kChunk;
    kernel.run();
  }
  if (kernel.pending_events() != pending) state.SkipWithError("the queue did not keep its size");
  if (model.count != model.stop_at) state.SkipWithError("a chunk did not process the expected events");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kChunk));
  state.counters["time_per_event"] = time_per_item(kChunk);
}
BENCHMARK(BM_EmptyEvents)->Arg(8)->Arg(1024)->Arg(65536)->UseRealTime();

// ---------------------------------------------------------------------------------------------
// An event that wakes a fiber

// An event chain, one event per nanosecond, each calling wake() on a Processor whose fiber loops
// on wait(). Per wake: the chain's event, the resume event Processor::wake() schedules, and the
// two context switches (into the fiber and back to the event loop).
struct WakeDriver {
  Kernel* kernel = nullptr;
  Processor* pp = nullptr;
  std::uint64_t count = 0;
  std::uint64_t stop_at = 0;
};

struct WakeEvent {
  WakeDriver* driver;
  void operator()() const;
};

void WakeEvent::operator()() const {
  WakeDriver& d = *driver;
  d.pp->wake();
  d.kernel->at(d.kernel->now() + 1_ns, WakeEvent{driver});
  if (++d.count == d.stop_at) d.kernel->stop();
}

void BM_FiberWake(benchmark::State& state) {
  Kernel kernel;
  MemoryBus bus(533e6);
  Processor pp(kernel, node_id(0), "bench PP", 4_us, bus, 100e6);
  pp.start([&pp] {
    for (;;) pp.wait("a wake from the benchmark");
  });
  WakeDriver driver{&kernel, &pp, 0, 0};
  kernel.at(kernel.now() + 1_ns, WakeEvent{&driver});
  driver.stop_at = kChunk;
  kernel.run();
  for (auto _ : state) {
    driver.stop_at += kChunk;
    kernel.run();
  }
  // Each wake resumed the fiber once (the last one's resume may still be pending).
  if (pp.stats().waits + 1 < driver.count) state.SkipWithError("wakes were lost");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kChunk));
  state.counters["time_per_wake"] = time_per_item(kChunk);
}
BENCHMARK(BM_FiberWake)->UseRealTime();

// A raw kernel fiber that schedules its own resumption and suspends: per item, one event whose
// body is Kernel::resume(), and the two context switches.
struct RawFiber {
  Kernel* kernel = nullptr;
  FiberId id{};
  std::uint64_t count = 0;
  std::uint64_t stop_at = 0;
};

void BM_FiberResume(benchmark::State& state) {
  Kernel kernel;
  RawFiber fiber;
  fiber.kernel = &kernel;
  fiber.id = kernel.spawn("bench fiber", [&fiber] {
    Kernel& k = *fiber.kernel;
    for (;;) {
      if (++fiber.count == fiber.stop_at) k.stop();
      k.resume_at(fiber.id, k.now() + 1_ns);
      k.suspend_current("its own resume event");
    }
  });
  fiber.stop_at = kChunk;
  kernel.run();
  for (auto _ : state) {
    fiber.stop_at += kChunk;
    kernel.run();
  }
  if (fiber.count != fiber.stop_at) state.SkipWithError("a chunk did not resume the expected times");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kChunk));
  state.counters["time_per_resume"] = time_per_item(kChunk);
}
BENCHMARK(BM_FiberResume)->UseRealTime();

// ---------------------------------------------------------------------------------------------
// Message patterns through the whole machine model

// Messages per benchmark iteration: one iteration takes ~50-200 ms at the current speed.
constexpr int kTargetMessages = 150'000;

int pattern_messages_per_round(TrafficPattern pattern, int nodes) {
  return pattern == TrafficPattern::Barrier ? 2 * (nodes - 1) : 2;
}

MachineConfig machine(MachineKind kind, int nodes) {
  MachineConfig config = default_machine_config(kind);
  config.machine.nodes = nodes;
  return config;
}

void traffic_bench(benchmark::State& state, MachineKind kind, TrafficPattern pattern, int nodes) {
  const MachineConfig config = machine(kind, nodes);
  TrafficOptions options;
  options.pattern = pattern;
  options.rounds = std::max(1, kTargetMessages / pattern_messages_per_round(pattern, nodes));
  std::uint64_t messages = 0;
  std::uint64_t events = 0;
  TimePoint simulated = kTimeZero;
  for (auto _ : state) {
    const TrafficResult result = run_traffic(config, options);
    if (result.run.status != RunStatus::Completed) {
      state.SkipWithError(result.run.diagnosis.c_str());
      break;
    }
    messages += result.messages;
    events += result.run.events;
    simulated = result.run.end_time;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(messages));
  state.counters["rounds"] = options.rounds;
  state.counters["msgs_per_iter"] =
      benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kAvgIterations);
  // Kernel events dispatched per message (including the fiber resumptions): the model's cost.
  state.counters["events_per_msg"] =
      messages ? static_cast<double>(events) / static_cast<double>(messages) : 0.0;
  state.counters["sim_us_per_round"] = static_cast<double>(to_ps(simulated)) * 1e-6 / options.rounds;
}

void BM_BarrierMessages(benchmark::State& state) {
  traffic_bench(state, MachineKind::Ncp2, TrafficPattern::Barrier, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_BarrierMessages)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BarrierMessagesTreadMarks(benchmark::State& state) {
  traffic_bench(state, MachineKind::TreadMarks, TrafficPattern::Barrier, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_BarrierMessagesTreadMarks)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PingPongMessages(benchmark::State& state) {
  traffic_bench(state, MachineKind::Ncp2, TrafficPattern::PingPong, 2);
}
BENCHMARK(BM_PingPongMessages)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---------------------------------------------------------------------------------------------
// Dedicated mode for bench/compare-simgrid

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

struct TrafficArgs {
  std::string pattern_name = "barrier";
  std::string machine_name = "ncp2";
  int nodes = 8;
  int rounds = 1000;
  int repeat = 1;
};

int positive_number(std::string_view value, std::string_view flag) {
  char* end = nullptr;
  const std::string text(value);
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 1 || v > 100'000'000) {
    std::fprintf(stderr, "ncp2_bench_emulator: %.*s needs a positive integer, got '%s'\n",
                 static_cast<int>(flag.size()), flag.data(), text.c_str());
    std::exit(2);
  }
  return static_cast<int>(v);
}

// The --flag=value options of the traffic mode; false (after a message) on an unknown one.
bool parse_traffic_args(int argc, char** argv, TrafficArgs& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto eq = arg.find('=');
    const std::string_view flag = arg.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view{} : arg.substr(eq + 1);
    if (flag == "--traffic")
      args.pattern_name = value;
    else if (flag == "--machine")
      args.machine_name = value;
    else if (flag == "--nodes")
      args.nodes = positive_number(value, flag);
    else if (flag == "--rounds")
      args.rounds = positive_number(value, flag);
    else if (flag == "--repeat")
      args.repeat = positive_number(value, flag);
    else {
      std::fprintf(stderr, "ncp2_bench_emulator: unknown option '%s' in --traffic mode\n", argv[i]);
      return false;
    }
  }
  return true;
}

// The fastest of `repeat` runs (wall seconds and its result); false if a run did not complete.
bool best_of(const MachineConfig& config, const TrafficOptions& options, int repeat, double& best_wall,
             TrafficResult& best) {
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    TrafficResult result = run_traffic(config, options);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (result.run.status != RunStatus::Completed) {
      std::fprintf(stderr, "ncp2_bench_emulator: the run did not complete: %s\n",
                   result.run.diagnosis.c_str());
      return false;
    }
    if (r == 0 || wall < best_wall) {
      best_wall = wall;
      best = std::move(result);
    }
  }
  return true;
}

int traffic_mode(int argc, char** argv) {
  TrafficArgs args;
  if (!parse_traffic_args(argc, argv, args)) return 2;
  TrafficOptions options;
  if (args.pattern_name == "barrier")
    options.pattern = TrafficPattern::Barrier;
  else if (args.pattern_name == "pingpong" || args.pattern_name == "ping-pong")
    options.pattern = TrafficPattern::PingPong;
  else {
    std::fprintf(stderr, "ncp2_bench_emulator: --traffic must be barrier or pingpong\n");
    return 2;
  }
  MachineKind kind{};
  if (args.machine_name == "ncp2")
    kind = MachineKind::Ncp2;
  else if (args.machine_name == "treadmarks")
    kind = MachineKind::TreadMarks;
  else {
    std::fprintf(stderr, "ncp2_bench_emulator: --machine must be ncp2 or treadmarks\n");
    return 2;
  }
  const int nodes = options.pattern == TrafficPattern::PingPong ? 2 : args.nodes;
  options.rounds = args.rounds;
  MachineConfig config = machine(kind, nodes);
  // SimGrid's platform is one crossbar for all nodes: give ours the same (one switch with a
  // port per node) so both simulate the same network, not our default tree of 8-port switches.
  config.network.switch_ports = std::max(config.network.switch_ports, nodes);

  double best_wall = 0;
  TrafficResult best;
  if (!best_of(config, options, args.repeat, best_wall, best)) return 1;
  std::printf(
      "ours pattern=%s machine=%s nodes=%d rounds=%d messages=%llu wall_s=%.6f msgs_per_s=%.0f sim_s=%.9f "
      "events_per_message=%.2f\n",
      options.pattern == TrafficPattern::Barrier ? "barrier" : "pingpong", args.machine_name.c_str(), nodes,
      args.rounds, static_cast<unsigned long long>(best.messages), best_wall,
      static_cast<double>(best.messages) / best_wall, static_cast<double>(to_ps(best.run.end_time)) * 1e-12,
      best.messages ? static_cast<double>(best.run.events) / static_cast<double>(best.messages) : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (starts_with(argv[i], "--traffic")) {
      try {
        return traffic_mode(argc, argv);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ncp2_bench_emulator: %s\n", e.what());
        return 1;
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
