// Issue 45's candidates for private globals per node in one process (bench/fiber_candidates.cpp
// has the list and the command line):
//   BM_GlobalsByMmap...  SMPI's first way: the program's writable segment backed by a memfd per
//                        rank, switched by mmap(MAP_FIXED|MAP_SHARED) of the next rank's memfd
//   BM_GlobalsByCopy     the segment copied out and in (memcpy) at each switch
//   BM_Dlmopen...        SMPI's second way: the program loaded once per rank into its own link
//                        namespace; how many glibc gives, and a call through one
//   BM_DlopenRenamedCopies/N   N renamed copies of the program's file, each dlopen'ed once
// The "program" is bench/fiber_candidates_program.cpp, a shared object built with 4 KiB, 64 KiB
// and 1 MiB of writable globals. Ranks switch round-robin over kRanks, as a runner switching
// among 8 nodes would.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/fiber_candidates.hpp"

namespace {

using namespace ncp2::bench::fiber_candidates;
using Clock = std::chrono::steady_clock;

constexpr int kRanks = 8;

// The writable part of a loaded program that privatization must switch: its writable PT_LOAD
// from the end of RELRO (made read-only after relocation, the same for every rank) to the end of
// .bss, in whole host pages.
struct Segment {
  unsigned char* start = nullptr;
  std::size_t bytes = 0;
  [[nodiscard]] std::size_t pages() const { return bytes / kHostPage; }
};

using BumpFn = long (*)(long);
using RandFn = int (*)();
using SrandFn = void (*)(unsigned);
using TlsAddressFn = long* (*)();

// One load of the test program and what the benchmarks call in it.
struct Program {
  void* handle = nullptr;
  Segment segment;
  BumpFn bump = nullptr;
  RandFn rand = nullptr;
  SrandFn srand = nullptr;
  TlsAddressFn tls_address = nullptr;
  std::string error;  // empty when loaded
};

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  void* address = dlsym(handle, name);
  Fn fn = nullptr;
  static_assert(sizeof fn == sizeof address);
  std::memcpy(&fn, &address, sizeof fn);  // POSIX guarantees the conversion; C++ only allows it
  return fn;
}

// dl_iterate_phdr's visit: the object whose writable PT_LOAD holds `inside`.
struct SegmentSearch {
  std::uintptr_t inside = 0;
  Segment found;
  std::string error;
};

int find_writable_segment(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  auto& search = *static_cast<SegmentSearch*>(data);
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  std::uintptr_t relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    const std::uintptr_t low = info->dlpi_addr + header.p_vaddr;
    const std::uintptr_t high = low + header.p_memsz;
    if (header.p_type == PT_LOAD && (header.p_flags & PF_W) != 0) {
      start = low;
      end = high;
    }
    if (header.p_type == PT_GNU_RELRO) relro_end = high;
  }
  if (search.inside < start || search.inside >= end) return 0;  // not this object
  start = std::max(start, relro_end);
  if (start % kHostPage != 0) {
    search.error = "the program's writable data does not start on a page after RELRO";
    return 1;
  }
  end = (end + kHostPage - 1) / kHostPage * kHostPage;
  search.found = {reinterpret_cast<unsigned char*>(start), end - start};  // NOLINT(performance-no-int-to-ptr)
  return 1;
}

// `with_segment`: find the writable segment too (dl_iterate_phdr reports only the caller's own
// namespace, so not for a program loaded with dlmopen).
Program load_program(const char* path, void* handle, bool with_segment) {
  Program program;
  program.handle = handle;
  if (!handle) {
    program.error = std::string("dlopen: ") + dlerror();
    return program;
  }
  program.bump = symbol<BumpFn>(handle, "ncp2_fiber_bump");
  program.rand = symbol<RandFn>(handle, "ncp2_fiber_rand");
  program.srand = symbol<SrandFn>(handle, "ncp2_fiber_srand");
  program.tls_address = symbol<TlsAddressFn>(handle, "ncp2_fiber_tls_address");
  SegmentSearch search{reinterpret_cast<std::uintptr_t>(dlsym(handle, "ncp2_fiber_counter")), {}, {}};
  if (!program.bump || !program.rand || !program.srand || !program.tls_address || search.inside == 0) {
    program.error = std::string(path) + " lacks the test program's functions";
    return program;
  }
  if (!with_segment) return program;
  dl_iterate_phdr(&find_writable_segment, &search);
  program.segment = search.found;
  program.error = search.error;
  if (program.error.empty() && !program.segment.start) program.error = "no writable segment found";
  return program;
}

// The program with `kib` KiB of globals, loaded once into the base namespace.
const Program& program(std::size_t kib) {
  static std::map<std::size_t, Program> loaded;
  auto it = loaded.find(kib);
  if (it != loaded.end()) return it->second;
  const char* path = program_path(kib);
  Program p = path ? load_program(path, dlopen(path, RTLD_NOW | RTLD_LOCAL), true) : Program{};
  if (!path) p.error = "no build of the test program with that size";
  return loaded.emplace(kib, std::move(p)).first->second;
}

// Puts the segment's bytes back in an ordinary private mapping when a benchmark ends.
class SegmentRestorer {
 public:
  explicit SegmentRestorer(Segment segment)
      : segment_(segment), saved_(segment.start, segment.start + segment.bytes) {}
  SegmentRestorer(const SegmentRestorer&) = delete;
  SegmentRestorer& operator=(const SegmentRestorer&) = delete;
  ~SegmentRestorer() {
    void* p = mmap(segment_.start, segment_.bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) std::abort();  // the program's data would be gone: nothing sensible to go on with
    std::memcpy(segment_.start, saved_.data(), saved_.size());
  }
  [[nodiscard]] const std::vector<unsigned char>& saved() const { return saved_; }

 private:
  Segment segment_;
  std::vector<unsigned char> saved_;
};

// Writes one byte of each of the first `pages` pages (its own value): the first accesses after a
// switch, which fault in every page of a fresh mapping.
void touch_pages(const Segment& segment, std::int64_t pages) {
  for (std::int64_t p = 0; p < pages; ++p) {
    volatile unsigned char* byte = segment.start + static_cast<std::size_t>(p) * kHostPage + kHostPage / 2;
    *byte = *byte;
  }
}

// Each rank adds rank+1 to the program's counter, then reads it back: true when every rank saw
// only its own addition, i.e. the globals really are private per rank.
template <typename SwitchTo>
bool globals_private_per_rank(const Program& program, SwitchTo&& switch_to) {
  const long base = program.bump(0);
  for (int r = 0; r < kRanks; ++r) {
    if (!switch_to(r)) return false;
    program.bump(r + 1);
  }
  for (int r = 0; r < kRanks; ++r)
    if (!switch_to(r) || program.bump(0) != base + r + 1) return false;
  return true;
}

// What two loads of the program share: libc's rand() state (both seeded alike, then one draw
// each: equal draws mean a state each) and the program's thread_local variable.
void report_sharing(benchmark::State& state, const Program& first, const Program& second) {
  first.srand(7);
  second.srand(7);
  const int first_draw = first.rand();
  const int second_draw = second.rand();
  state.counters["libc_rand_state_shared"] = first_draw != second_draw ? 1 : 0;
  state.counters["program_thread_local_shared"] = first.tls_address() == second.tls_address() ? 1 : 0;
}

void report_segment(benchmark::State& state, const Segment& segment, std::int64_t touched) {
  state.counters["segment_bytes"] = static_cast<double>(segment.bytes);
  state.counters["pages_touched_per_switch"] = static_cast<double>(touched);
  state.counters["ranks"] = kRanks;
}

// Shared by the mmap variants: `populate` adds MAP_POPULATE (the page tables filled in the
// switch's own system call instead of one fault per page touched).
void globals_by_mmap(benchmark::State& state, bool populate) {
  const Program& p = program(static_cast<std::size_t>(state.range(0)));
  const std::int64_t touched = state.range(1);
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  if (static_cast<std::size_t>(touched) > p.segment.pages())
    return state.SkipWithError("more pages than the segment");
  const SegmentRestorer restorer(p.segment);
  std::vector<Fd> rank_files;
  for (int r = 0; r < kRanks; ++r) {
    Fd fd(memfd_create("ncp2-rank-globals", MFD_CLOEXEC));
    if (!fd.valid() || ftruncate(fd.get(), static_cast<off_t>(p.segment.bytes)) != 0 ||
        pwrite(fd.get(), restorer.saved().data(), p.segment.bytes, 0) !=
            static_cast<ssize_t>(p.segment.bytes))
      return state.SkipWithError(system_error_text("a rank's memfd").c_str());
    rank_files.push_back(std::move(fd));
  }
  const int flags = MAP_SHARED | MAP_FIXED | (populate ? MAP_POPULATE : 0);
  auto switch_to = [&](int rank) {
    return mmap(p.segment.start, p.segment.bytes, PROT_READ | PROT_WRITE, flags, rank_files[rank].get(), 0) !=
           MAP_FAILED;
  };
  if (!globals_private_per_rank(p, switch_to))
    return state.SkipWithError("the remapped globals are not private per rank");
  int rank = 0;
  for (auto _ : state) {
    rank = (rank + 1) % kRanks;
    if (!switch_to(rank)) return state.SkipWithError(system_error_text("mmap").c_str());
    touch_pages(p.segment, touched);
  }
  report_segment(state, p.segment, touched);
}

void BM_GlobalsByMmap_SwitchRankThenTouchPages(benchmark::State& state) { globals_by_mmap(state, false); }
void BM_GlobalsByMmapPopulate_SwitchRankThenTouchPages(benchmark::State& state) {
  globals_by_mmap(state, true);
}

void BM_GlobalsByCopy_SwitchRankThenTouchPages(benchmark::State& state) {
  const Program& p = program(static_cast<std::size_t>(state.range(0)));
  const std::int64_t touched = state.range(1);
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  if (static_cast<std::size_t>(touched) > p.segment.pages())
    return state.SkipWithError("more pages than the segment");
  const SegmentRestorer restorer(p.segment);
  std::vector<Mapping> saved;
  for (int r = 0; r < kRanks; ++r) {
    saved.emplace_back(p.segment.bytes, MAP_PRIVATE);
    if (!saved.back().valid()) return state.SkipWithError(system_error_text("a rank's save area").c_str());
    std::memcpy(saved.back().data(), restorer.saved().data(), p.segment.bytes);
  }
  int current = 0;  // the segment holds rank 0's globals (the original ones)
  auto switch_to = [&](int rank) {
    std::memcpy(saved[current].data(), p.segment.start, p.segment.bytes);
    std::memcpy(p.segment.start, saved[rank].data(), p.segment.bytes);
    current = rank;
    return true;
  };
  if (!globals_private_per_rank(p, switch_to))
    return state.SkipWithError("the copied globals are not private per rank");
  for (auto _ : state) {
    switch_to((current + 1) % kRanks);
    touch_pages(p.segment, touched);
  }
  report_segment(state, p.segment, touched);
}

void privatization_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"segment_kib", "touched_pages"});
  for (int touched : {0, 1}) b->Args({4, touched});
  for (int touched : {0, 1, 16}) b->Args({64, touched});
  for (int touched : {0, 1, 16, 256}) b->Args({1024, touched});
}
BENCHMARK(BM_GlobalsByMmap_SwitchRankThenTouchPages)->Apply(privatization_args);
BENCHMARK(BM_GlobalsByMmapPopulate_SwitchRankThenTouchPages)->Apply(privatization_args);
BENCHMARK(BM_GlobalsByCopy_SwitchRankThenTouchPages)->Apply(privatization_args);

// ---------------------------------------------------------------------------------------------
// dlmopen: a link namespace per rank

constexpr std::size_t kMostNamespacesTried = 64;

// The namespaces opened so far, kept open (glibc reuses a namespace only once it is empty again).
struct Namespaces {
  std::vector<Program> programs;
  std::string refusal;  // dlerror() of the dlmopen that failed
  double seconds = 0;   // spent in the dlmopen calls that succeeded and the one that failed
};
Namespaces& namespaces() {
  static Namespaces opened;
  return opened;
}

// Opens namespaces with the 4 KiB program until glibc refuses one (or kMostNamespacesTried).
void open_namespaces_until_refused() {
  Namespaces& ns = namespaces();
  if (!ns.refusal.empty() || ns.programs.size() >= kMostNamespacesTried) return;
  const char* path = program_path(4);
  const auto start = Clock::now();
  while (ns.programs.size() < kMostNamespacesTried) {
    void* handle = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      ns.refusal = dlerror();
      break;
    }
    ns.programs.push_back(load_program(path, handle, false));
  }
  ns.seconds = std::chrono::duration<double>(Clock::now() - start).count();
}

void BM_DlmopenNamespacesUntilRefused(benchmark::State& state) {
  for (auto _ : state) {
    open_namespaces_until_refused();
    state.SetIterationTime(namespaces().seconds);
  }
  const Namespaces& ns = namespaces();
  const auto opened = ns.programs.size();
  state.counters["namespaces_opened"] = static_cast<double>(opened);
  state.counters["us_per_dlmopen"] = opened ? ns.seconds * 1e6 / static_cast<double>(opened + 1) : 0;
  if (opened >= 2) report_sharing(state, ns.programs[0], ns.programs[1]);
  state.SetLabel("new namespaces until refused: " + std::to_string(opened) + "; then: " +
                 (ns.refusal.empty() ? std::string("none refused up to the most tried") : ns.refusal));
}
BENCHMARK(BM_DlmopenNamespacesUntilRefused)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// A call into the program, from the emulator's side: through a function pointer, as a runner
// would call it, into the base namespace's copy or a dlmopen namespace's.
const Program* namespace_program() {
  open_namespaces_until_refused();
  const Namespaces& ns = namespaces();
  return ns.programs.empty() || !ns.programs[0].error.empty() ? nullptr : &ns.programs[0];
}

void call_bump(benchmark::State& state, const Program* p) {
  if (!p || !p->error.empty()) return state.SkipWithError("the program could not be loaded there");
  for (auto _ : state) benchmark::DoNotOptimize(p->bump(1));
}
void call_rand(benchmark::State& state, const Program* p) {
  if (!p || !p->error.empty()) return state.SkipWithError("the program could not be loaded there");
  for (auto _ : state) benchmark::DoNotOptimize(p->rand());
}
void BM_CallProgramFunction_DlopenBaseNamespace(benchmark::State& state) { call_bump(state, &program(4)); }
void BM_CallProgramFunction_DlmopenNamespace(benchmark::State& state) {
  call_bump(state, namespace_program());
}
void BM_CallProgramCallingLibcRand_DlopenBaseNamespace(benchmark::State& state) {
  call_rand(state, &program(4));
}
void BM_CallProgramCallingLibcRand_DlmopenNamespace(benchmark::State& state) {
  call_rand(state, namespace_program());
}
BENCHMARK(BM_CallProgramFunction_DlopenBaseNamespace);
BENCHMARK(BM_CallProgramFunction_DlmopenNamespace);
BENCHMARK(BM_CallProgramCallingLibcRand_DlopenBaseNamespace);
BENCHMARK(BM_CallProgramCallingLibcRand_DlmopenNamespace);

// ---------------------------------------------------------------------------------------------
// dlopen of N renamed copies of the program's file

constexpr double kLoadSecondsLimit = 120;  // "takes too long": loading stops after this

// Renamed copies of the 4 KiB program in a temporary directory, removed at exit.
class ProgramCopies {
 public:
  ProgramCopies() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ncp2-fiber-copies-XXXXXX").string();
    if (mkdtemp(pattern.data())) dir_ = pattern;
  }
  ProgramCopies(const ProgramCopies&) = delete;
  ProgramCopies& operator=(const ProgramCopies&) = delete;
  ~ProgramCopies() {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  // Makes copies up to `count`; the reason in `error` when it cannot.
  bool ensure(std::size_t count, std::string& error) {
    if (dir_.empty()) {
      error = system_error_text("a temporary directory");
      return false;
    }
    std::error_code failed;
    for (; made_ < count; ++made_) {
      if (!std::filesystem::copy_file(program_path(4), path(made_), failed)) {
        error = "copying the program: " + failed.message();
        return false;
      }
    }
    return true;
  }
  [[nodiscard]] std::string path(std::size_t i) const {
    return (dir_ / ("program-" + std::to_string(i) + ".so")).string();
  }

 private:
  std::filesystem::path dir_;
  std::size_t made_ = 0;
};

struct MemoryUse {
  double rss_anon_kib = 0;
  double rss_file_kib = 0;
  double mappings = 0;
};

MemoryUse memory_use() {
  MemoryUse use;
  std::ifstream status("/proc/self/status");
  for (std::string key; status >> key;) {
    if (key == "RssAnon:") status >> use.rss_anon_kib;
    if (key == "RssFile:") status >> use.rss_file_kib;
  }
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) ++use.mappings;
  return use;
}

struct CopiesLoaded {
  std::vector<void*> handles;
  double seconds = 0;
  double seconds_last_tenth = 0;  // the last tenth of the copies asked for: does a load slow down?
  std::size_t copies_last_tenth = 0;
  std::string stop;  // why loading stopped early; empty when every copy loaded
};

CopiesLoaded load_copies(const ProgramCopies& copies, std::size_t count) {
  CopiesLoaded loaded;
  const std::size_t last_tenth = count - count / 10;
  const auto start = Clock::now();
  auto tenth_start = start;
  for (std::size_t i = 0; i < count; ++i) {
    if (i == last_tenth) tenth_start = Clock::now();
    void* handle = dlopen(copies.path(i).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      loaded.stop = "dlopen of copy " + std::to_string(i) + " failed: " + dlerror();
      break;
    }
    loaded.handles.push_back(handle);
    if (std::chrono::duration<double>(Clock::now() - start).count() > kLoadSecondsLimit) {
      loaded.stop = "stopped after " + std::to_string(i + 1) + " copies: over the time limit";
      break;
    }
  }
  const auto end = Clock::now();
  loaded.seconds = std::chrono::duration<double>(end - start).count();
  if (loaded.handles.size() == count) {
    loaded.seconds_last_tenth = std::chrono::duration<double>(end - tenth_start).count();
    loaded.copies_last_tenth = count - last_tenth;
  }
  return loaded;
}

void report_copies(benchmark::State& state, const CopiesLoaded& loaded, const MemoryUse& before,
                   const MemoryUse& after) {
  const auto n = static_cast<double>(loaded.handles.size());
  state.counters["copies_loaded"] = n;
  if (n == 0) return;
  state.counters["us_per_copy"] = loaded.seconds * 1e6 / n;
  if (loaded.copies_last_tenth > 0)
    state.counters["us_per_copy_last_tenth"] =
        loaded.seconds_last_tenth * 1e6 / static_cast<double>(loaded.copies_last_tenth);
  state.counters["rss_anon_kib_per_copy"] = (after.rss_anon_kib - before.rss_anon_kib) / n;
  state.counters["rss_file_kib_per_copy"] = (after.rss_file_kib - before.rss_file_kib) / n;
  state.counters["mappings_per_copy"] = (after.mappings - before.mappings) / n;
  std::error_code ignored;
  state.counters["file_kib"] =
      static_cast<double>(std::filesystem::file_size(program_path(4), ignored)) / 1024;
}

void BM_DlopenRenamedCopies(benchmark::State& state) {
  static ProgramCopies copies;
  const auto count = static_cast<std::size_t>(state.range(0));
  std::string error;
  if (!copies.ensure(count, error)) return state.SkipWithError(error.c_str());
  for (auto _ : state) {
    const MemoryUse before = memory_use();
    CopiesLoaded loaded = load_copies(copies, count);
    state.SetIterationTime(loaded.seconds);
    // Each copy's globals used once (a node's first run): its data pages become its own.
    for (void* handle : loaded.handles)
      if (auto bump = symbol<BumpFn>(handle, "ncp2_fiber_bump")) bump(1);
    report_copies(state, loaded, before, memory_use());
    if (loaded.handles.size() >= 2) {
      const std::string path = copies.path(0);
      report_sharing(state, load_program(path.c_str(), loaded.handles[0], false),
                     load_program(path.c_str(), loaded.handles[1], false));
    }
    state.SetLabel(loaded.stop.empty() ? "every copy loaded" : loaded.stop);
    std::for_each(loaded.handles.rbegin(), loaded.handles.rend(), [](void* handle) { dlclose(handle); });
  }
}
BENCHMARK(BM_DlopenRenamedCopies)
    ->ArgName("copies")
    ->Arg(16)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(16384)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
