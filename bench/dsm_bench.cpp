// Emulator cost of DSM misses (Google Benchmark):
//   BM_RemotePageFault   wall time per page fault on a page never held (page request + reply)
//   BM_DiffFetch         wall time per diff fetch of an invalidated page (one writer)
//   BM_BarrierHeavy/N    messages per second of a program made of barriers only
//   BM_DiffBetween/P, BM_DiffApply/P  a diff's scan and encoding, and its application, for one
//                        rewritten 4 KB page (P: every byte changed, or doubles slightly changed)
//   BM_NextTwin          a page's first write in an interval with an older twin: diff encoded at
//                        once and a twin copy, or the fused size-and-copy pass (deferred diffs)
// The *_Copies benchmarks measure, in the same run, the real data work a miss includes (two 4 KB
// copies for a page; a diff scan, encode and apply for a diff), so the emulator's own overhead per
// miss is the difference: bench/dsm-overhead prints it.
#include <benchmark/benchmark.h>
#include <algorithm>

#include <cstring>
#include <vector>

#include "dsm/process.hpp"
#include "dsm/runtime.hpp"
#include "emulator/cluster.hpp"
#include "lrc/diff.hpp"

namespace {

using namespace ncp2;

constexpr std::size_t kPages = 4096;

struct Run {
  explicit Run(emu::MachineKind kind, int nodes)
      : cfg(make(kind, nodes)), cluster(kernel, cfg), dsm(kernel, cluster, cfg) {}
  static dsm::SystemConfig make(emu::MachineKind kind, int nodes) {
    dsm::SystemConfig c = dsm::default_config(kind);
    c.machine.nodes = nodes;
    c.dsm.gc_threshold_kb = 1 << 20;  // no GC inside the measurement
    return c;
  }
  dsm::SystemConfig cfg;
  emu::Kernel kernel;
  emu::Cluster cluster;
  dsm::Runtime dsm;
};

// Host memory is touched once before the timed part (calloc gives untouched pages whose first
// write costs the host a page fault of its own, which is part of the real copy, not of the
// emulator).
void prefault(dsm::Process& p, std::uint32_t region, std::size_t bytes) {
  std::memset(p.runtime().region_data(p.node(), region), 0, bytes);
}

void BM_RemotePageFault(benchmark::State& state) {
  const auto kind = static_cast<emu::MachineKind>(state.range(0));
  std::uint64_t faults = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto r = std::make_unique<Run>(kind, 2);
    bool timed = false;
    r->dsm.start([&timed](dsm::Process& p) {
      auto a = p.alloc<std::int64_t>("a", kPages * 512);
      prefault(p, a.region(), a.size() * sizeof(std::int64_t));
      if (p.id() == 1) {
        p.runtime().kernel().stop();  // end of the untimed set-up
        auto v = p.view(a);
        for (std::size_t page = 0; page < kPages; ++page) benchmark::DoNotOptimize(v.get(page * 512));
      }
      (void)timed;
    });
    r->kernel.run();
    state.ResumeTiming();
    r->kernel.run();
    state.PauseTiming();
    faults += r->dsm.stats(emu::node_id(1)).page_requests;
    r.reset();
    state.ResumeTiming();
  }
  state.counters["per_fault"] = benchmark::Counter(static_cast<double>(faults),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RemotePageFault)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("treadmarks")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DiffFetch(benchmark::State& state) {
  const auto kind = static_cast<emu::MachineKind>(state.range(0));
  std::uint64_t fetches = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto r = std::make_unique<Run>(kind, 2);
    // Both nodes hold every page; node 1 writes a word of each; after the barrier node 0 reads
    // them: one diff fetch per page. Only that last phase is timed.
    bool ready = false;
    r->dsm.start([&ready](dsm::Process& p) {
      auto a = p.alloc<std::int64_t>("a", kPages * 512);
      prefault(p, a.region(), a.size() * sizeof(std::int64_t));
      auto v = p.view(a);
      if (p.id() == 1)
        for (std::size_t page = 0; page < kPages; ++page) benchmark::DoNotOptimize(v.get(page * 512));
      p.barrier(0);
      if (p.id() == 1)
        for (std::size_t page = 0; page < kPages; ++page) v.set(page * 512 + 3, 1);
      p.barrier(1);
      if (!ready) {
        ready = true;
        p.runtime().kernel().stop();  // end of the untimed set-up
      }
      if (p.id() == 0)
        for (std::size_t page = 0; page < kPages; ++page) benchmark::DoNotOptimize(v.get(page * 512 + 3));
    });
    r->kernel.run();  // up to the second barrier, untimed
    state.ResumeTiming();
    r->kernel.run();
    state.PauseTiming();
    fetches += r->dsm.stats(emu::node_id(0)).diff_requests;
    r.reset();
    state.ResumeTiming();
  }
  state.counters["per_fetch"] = benchmark::Counter(static_cast<double>(fetches),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DiffFetch)->Arg(0)->Arg(1)->ArgName("treadmarks")->Unit(benchmark::kMillisecond)->UseRealTime();

// The real data work inside one page fault, with the same memory footprint as BM_RemotePageFault
// (a page out of one 16 MB region into the reply, then into another 16 MB region), so the caches
// miss as they do there.
void BM_RemotePageFault_Copies(benchmark::State& state) {
  const std::size_t bytes = kPages * 4096;
  std::vector<std::byte> home(bytes, std::byte{1}), requester(bytes, std::byte{0}), message(4096);
  std::size_t page = 0;
  for (auto _ : state) {
    std::memcpy(message.data(), home.data() + page * 4096, 4096);
    benchmark::ClobberMemory();
    std::memcpy(requester.data() + page * 4096, message.data(), 4096);
    benchmark::ClobberMemory();
    page = (page + 1) % kPages;
  }
}
BENCHMARK(BM_RemotePageFault_Copies);

// The real data work inside one diff fetch, same footprint: twin made at the write fault, scan
// and encode at the writer, decode and apply at the reader.
void BM_DiffFetch_Copies(benchmark::State& state) {
  const std::size_t bytes = kPages * 4096;
  std::vector<std::byte> writer(bytes, std::byte{0}), reader(bytes, std::byte{0}), twin(4096), reply;
  std::size_t page = 0;
  for (auto _ : state) {
    std::byte* w = writer.data() + page * 4096;
    std::memcpy(twin.data(), w, 4096);
    w[24] = std::byte{static_cast<unsigned char>(page)};
    const lrc::Diff d = lrc::Diff::between(twin, std::span<const std::byte>(w, 4096), 4);
    reply.assign(d.encoded().begin(), d.encoded().end());
    const lrc::Diff back = lrc::Diff::decode(reply, 4);
    back.apply_to(std::span<std::byte>(reader.data() + page * 4096, 4096));
    benchmark::ClobberMemory();
    page = (page + 1) % kPages;
  }
}
BENCHMARK(BM_DiffFetch_Copies);

// One 4 KB page, cache-hot: the diff's scan and encoding (BM_DiffBetween) and its application
// (BM_DiffApply) alone. Pattern 0: every byte rewritten. Pattern 1: a page of doubles each
// slightly changed (as a relaxation sweep does): every word changes, but not every byte of it.
std::vector<std::byte> rewritten(const std::vector<std::byte>& twin, std::int64_t pattern) {
  std::vector<std::byte> page = twin;
  if (pattern == 0) {
    for (auto& b : page) b = ~b;
  } else {
    for (std::size_t i = 0; i < page.size(); i += sizeof(double)) {
      double x;
      std::memcpy(&x, &twin[i], sizeof x);
      x *= 1.000001;
      std::memcpy(&page[i], &x, sizeof x);
    }
  }
  return page;
}
std::vector<std::byte> twin_page() {
  std::vector<std::byte> twin(4096);
  for (std::size_t i = 0; i < twin.size(); i += sizeof(double)) {
    const double x = 1.0 + static_cast<double>(i) / 3.0;
    std::memcpy(&twin[i], &x, sizeof x);
  }
  return twin;
}

void BM_DiffBetween(benchmark::State& state) {
  const auto twin = twin_page();
  const auto page = rewritten(twin, state.range(0));
  std::vector<std::byte> storage;
  for (auto _ : state) {
    lrc::Diff d = lrc::Diff::between(twin, page, 4, std::move(storage));
    benchmark::DoNotOptimize(d.encoded().data());
    storage = std::move(d).take_storage();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 4096);
}
BENCHMARK(BM_DiffBetween)->Arg(0)->Arg(1)->ArgName("pattern");

void BM_DiffApply(benchmark::State& state) {
  const auto twin = twin_page();
  const auto page = rewritten(twin, state.range(0));
  const lrc::Diff d = lrc::Diff::between(twin, page, 4);
  std::vector<std::byte> reader = twin;
  for (auto _ : state) {
    d.apply_to(reader);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 4096);
}
BENCHMARK(BM_DiffApply)->Arg(0)->Arg(1)->ArgName("pattern");

// A page's first write in an interval when its twin still holds an older interval's start (SOR's
// every page, every interval), per page, over `pages` pages (1: cache-hot; 8192: 96 MB of twins,
// pages and new twins, from memory). fused 0: the diff encoded at once, then the page copied into
// the new twin (before deferred diffs; the runtime then reused the old twin's buffer, still in
// cache); fused 1: Diff::size_and_copy, one pass (the diff is encoded only if requested). Pattern
// 1 (doubles slightly changed).
void BM_NextTwin(benchmark::State& state) {
  const auto pages = static_cast<std::size_t>(state.range(0));
  const bool fused = state.range(1) != 0;
  const auto first = twin_page();
  const auto changed = rewritten(first, 1);
  std::vector<std::vector<std::byte>> twins(pages, first);
  std::vector<std::vector<std::byte>> written(pages, changed);
  std::vector<std::vector<std::byte>> next(pages, std::vector<std::byte>(4096));
  std::vector<std::byte> storage;
  std::size_t p = 0;
  for (auto _ : state) {
    if (fused) {
      benchmark::DoNotOptimize(lrc::Diff::size_and_copy(twins[p], written[p], 4, next[p]));
    } else {
      lrc::Diff d = lrc::Diff::between(twins[p], written[p], 4, std::move(storage));
      benchmark::DoNotOptimize(d.encoded().data());
      storage = std::move(d).take_storage();
      std::memcpy(next[p].data(), written[p].data(), 4096);
    }
    benchmark::ClobberMemory();
    p = p + 1 == pages ? 0 : p + 1;
  }
}
BENCHMARK(BM_NextTwin)->ArgsProduct({{1, 8192}, {0, 1}})->ArgNames({"pages", "fused"});

void BM_BarrierHeavy(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::uint64_t messages = 0;
  for (auto _ : state) {
    Run r(emu::MachineKind::Ncp2, nodes);
    r.dsm.start([](dsm::Process& p) {
      for (int i = 0; i < 2000; ++i) p.barrier(0);
    });
    r.kernel.run();
    messages += r.cluster.network().messages();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(messages));
}
BENCHMARK(BM_BarrierHeavy)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

// The profiler's cost: the same workload with and without CARNIVAL attached (no database write).
// bench/profile-overhead prints the ratio (goal <= 1.03).
#include "run/runner.hpp"
#include "workloads/registry.hpp"

namespace {
void BM_Workload(benchmark::State& state, bool profile, std::size_t timeline) {
  const auto& w = ncp2::workloads::find_workload("phases");
  auto config = ncp2::dsm::default_config(ncp2::emu::MachineKind::Ncp2);
  config.machine.nodes = 8;
  const auto params = w.resolve("paper", {});
  ncp2::run::RunOptions options;
  options.profile = profile;
  options.profiler.max_timeline = timeline;
  for (auto _ : state) {
    const auto out = ncp2::run::run_workload(config, w, params, 1, options);
    if (!out.ok()) state.SkipWithError("run failed");
    benchmark::DoNotOptimize(out.timed_end);
  }
}
// The emulation alone (RunOutcome::wall_seconds: from start to the end of Kernel::run, without
// assembling the profile afterwards): what the probes cost while the machine runs.
void BM_Emulation(benchmark::State& state, bool profile) {
  const auto& w = ncp2::workloads::find_workload("phases");
  auto config = ncp2::dsm::default_config(ncp2::emu::MachineKind::Ncp2);
  config.machine.nodes = 8;
  const auto params = w.resolve("paper", {});
  ncp2::run::RunOptions options;
  options.profile = profile;
  options.profiler.max_timeline = 0;
  for (auto _ : state) {
    const auto out = ncp2::run::run_workload(config, w, params, 1, options);
    if (!out.ok()) state.SkipWithError("run failed");
    state.SetIterationTime(out.wall_seconds);
  }
}
// The same two emulations interleaved (off, on, off, on, ...) and compared by their fastest runs:
// on a shared, noisy host the minimum is the least disturbed estimate of each, and interleaving
// exposes both to the same conditions. Counter `ratio`: min(on) / min(off).
void BM_EmulationRatio(benchmark::State& state) {
  const auto& w = ncp2::workloads::find_workload("phases");
  auto config = ncp2::dsm::default_config(ncp2::emu::MachineKind::Ncp2);
  config.machine.nodes = 8;
  const auto params = w.resolve("paper", {});
  ncp2::run::RunOptions off;
  ncp2::run::RunOptions on;
  on.profile = true;
  on.profiler.max_timeline = 0;
  double best_off = 1e9;
  double best_on = 1e9;
  for (auto _ : state) {
    const auto a = ncp2::run::run_workload(config, w, params, 1, off);
    const auto b = ncp2::run::run_workload(config, w, params, 1, on);
    if (!a.ok() || !b.ok()) state.SkipWithError("run failed");
    best_off = std::min(best_off, a.wall_seconds);
    best_on = std::min(best_on, b.wall_seconds);
    state.SetIterationTime(a.wall_seconds + b.wall_seconds);
  }
  state.counters["min_off_ms"] = best_off * 1e3;
  state.counters["min_on_ms"] = best_on * 1e3;
  state.counters["ratio"] = best_on / best_off;
}
BENCHMARK(BM_EmulationRatio)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(15);
BENCHMARK_CAPTURE(BM_Emulation, profiling_off, false)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK_CAPTURE(BM_Emulation, profiling_on, true)->Unit(benchmark::kMillisecond)->UseManualTime();
BENCHMARK_CAPTURE(BM_Workload, profiling_off, false, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Workload, profiling_on, true, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Workload, profiling_on_with_timeline, true, 1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
}  // namespace
