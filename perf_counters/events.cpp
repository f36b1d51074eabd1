#include "perf_counters/events.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <perfmon/pfmlib_perf_event.h>

namespace ncp2::counters {

namespace {

struct GenericEvent {
  const char* name;
  std::uint32_t type;
  std::uint64_t config;
  const char* encoding;
};

constexpr std::uint64_t cache(std::uint64_t id, std::uint64_t op, std::uint64_t result) {
  return id | (op << 8) | (result << 16);
}

// The generic events of perf_event_open(2) under the names `perf list` uses.
const std::vector<GenericEvent>& generic_table() {
  static const std::vector<GenericEvent> table = {
      {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES"},
      {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES"},
      {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "PERF_COUNT_HW_INSTRUCTIONS"},
      {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
       "PERF_COUNT_HW_CACHE_REFERENCES"},
      {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "PERF_COUNT_HW_CACHE_MISSES"},
      {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
       "PERF_COUNT_HW_BRANCH_INSTRUCTIONS"},
      {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
       "PERF_COUNT_HW_BRANCH_INSTRUCTIONS"},
      {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "PERF_COUNT_HW_BRANCH_MISSES"},
      {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "PERF_COUNT_HW_BUS_CYCLES"},
      {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "PERF_COUNT_HW_REF_CPU_CYCLES"},
      {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
       "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND"},
      {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
       "PERF_COUNT_HW_STALLED_CYCLES_BACKEND"},
      {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "PERF_COUNT_SW_TASK_CLOCK"},
      {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "PERF_COUNT_SW_CPU_CLOCK"},
      {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS"},
      {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS"},
      {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "PERF_COUNT_SW_PAGE_FAULTS_MIN"},
      {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "PERF_COUNT_SW_PAGE_FAULTS_MAJ"},
      {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
       "PERF_COUNT_SW_CONTEXT_SWITCHES"},
      {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "PERF_COUNT_SW_CONTEXT_SWITCHES"},
      {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS"},
      {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS"},
      {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS,
       "PERF_COUNT_SW_ALIGNMENT_FAULTS"},
      {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS,
       "PERF_COUNT_SW_EMULATION_FAULTS"},
      {"L1-dcache-loads", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
       "PERF_COUNT_HW_CACHE_L1D:READ:ACCESS"},
      {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
       "PERF_COUNT_HW_CACHE_L1D:READ:MISS"},
      {"L1-dcache-stores", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
       "PERF_COUNT_HW_CACHE_L1D:WRITE:ACCESS"},
      {"L1-icache-load-misses", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
       "PERF_COUNT_HW_CACHE_L1I:READ:MISS"},
      {"LLC-loads", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
       "PERF_COUNT_HW_CACHE_LL:READ:ACCESS"},
      {"LLC-load-misses", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
       "PERF_COUNT_HW_CACHE_LL:READ:MISS"},
      {"dTLB-loads", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
       "PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS"},
      {"dTLB-load-misses", PERF_TYPE_HW_CACHE,
       cache(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
       "PERF_COUNT_HW_CACHE_DTLB:READ:MISS"},
  };
  return table;
}

const char* type_name(std::uint32_t type) {
  switch (type) {
    case PERF_TYPE_HARDWARE:
      return "PERF_TYPE_HARDWARE";
    case PERF_TYPE_SOFTWARE:
      return "PERF_TYPE_SOFTWARE";
    case PERF_TYPE_HW_CACHE:
      return "PERF_TYPE_HW_CACHE";
    case PERF_TYPE_RAW:
      return "PERF_TYPE_RAW";
    default:
      return "PMU";
  }
}

std::string unit_of(std::uint32_t type, std::uint64_t config) {
  const bool clock =
      type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK);
  return clock ? "ns" : "";
}

// pfm_initialize() once per process; its result says whether libpfm4 can be asked at all.
struct Pfm {
  int status = PFM_ERR_NOINIT;
  Pfm() : status(pfm_initialize()) {}
  [[nodiscard]] bool ok() const { return status == PFM_SUCCESS; }
};
const Pfm& pfm() {
  static const Pfm instance;
  return instance;
}

// libpfm4 returns the event's description in memory from malloc(); this deleter lets a unique_ptr
// own it, so it is the one place that must call free().
struct FreeDeleter {
  // NOLINTNEXTLINE(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory): frees libpfm4's string
  void operator()(char* p) const { std::free(p); }
};

std::optional<EventEncoding> resolve_with_libpfm4(std::string_view name, std::string& error) {
  if (!pfm().ok()) {
    error = fmt::format("libpfm4 did not start ({})", pfm_strerror(pfm().status));
    return std::nullopt;
  }
  perf_event_attr attr{};
  attr.size = sizeof attr;
  char* fstr = nullptr;
  pfm_perf_encode_arg_t arg{};
  arg.size = sizeof arg;
  arg.attr = &attr;
  arg.fstr = &fstr;
  const std::string name_z(name);
  const int rc = pfm_get_os_event_encoding(name_z.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  std::unique_ptr<char, FreeDeleter> owned(fstr);
  if (rc != PFM_SUCCESS) {
    error = fmt::format("libpfm4: {}", pfm_strerror(rc));
    return std::nullopt;
  }
  EventEncoding e;
  e.name = name_z;
  e.source = "libpfm4";
  e.encoding = owned ? owned.get() : name_z;
  e.type = attr.type;
  e.config = attr.config;
  e.config1 = attr.config1;
  e.config2 = attr.config2;
  e.unit = unit_of(e.type, e.config);
  return e;
}

std::optional<EventEncoding> resolve_generic(std::string_view name) {
  for (const auto& g : generic_table()) {
    if (name != g.name) continue;
    EventEncoding e;
    e.name = std::string(name);
    e.source = "generic";
    e.encoding = fmt::format("{}/{}", type_name(g.type), g.encoding);
    e.type = g.type;
    e.config = g.config;
    e.unit = unit_of(e.type, e.config);
    return e;
  }
  // rNNNN: a raw encoding for the CPU's PMU, as `perf stat -e r530143` takes it.
  if (name.size() > 1 && name.size() <= 17 && name[0] == 'r' &&
      std::all_of(name.begin() + 1, name.end(),
                  [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
    EventEncoding e;
    e.name = std::string(name);
    e.source = "generic";
    e.type = PERF_TYPE_RAW;
    e.config = std::stoull(std::string(name.substr(1)), nullptr, 16);
    e.encoding = fmt::format("PERF_TYPE_RAW/{:#x}", e.config);
    return e;
  }
  return std::nullopt;
}

}  // namespace

bool EventEncoding::is_software() const { return type == PERF_TYPE_SOFTWARE; }

Resolution resolve_event(std::string_view name, Resolver how) {
  Resolution r;
  std::string pfm_error;
  if (how == Resolver::libpfm4_then_generic) {
    r.event = resolve_with_libpfm4(name, pfm_error);
    if (r.event) return r;
  }
  r.event = resolve_generic(name);
  if (r.event) return r;
  r.error = how == Resolver::generic_only
                ? fmt::format("unknown event '{}' (not a generic perf event)", name)
                : fmt::format("unknown event '{}' ({}; not a generic perf event either)", name, pfm_error);
  return r;
}

const std::vector<std::string>& default_event_names() {
  static const std::vector<std::string> names = {"instructions",          "cycles",     "L1-dcache-loads",
                                                 "L1-dcache-load-misses", "task-clock", "page-faults",
                                                 "context-switches"};
  return names;
}

std::vector<std::string> generic_event_names() {
  std::vector<std::string> out;
  for (const auto& g : generic_table()) out.emplace_back(g.name);
  return out;
}

std::string libpfm4_description() {
  if (!pfm().ok()) return fmt::format("libpfm4 did not start: {}", pfm_strerror(pfm().status));
  std::string pmus;
  int i = 0;
  pfm_for_all_pmus(i) {
    pfm_pmu_info_t info{};
    info.size = sizeof info;
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(i), &info) != PFM_SUCCESS || !info.is_present) continue;
    pmus += fmt::format("{}{}", pmus.empty() ? "" : ", ", info.name);
  }
  return fmt::format("libpfm4 (PMUs it knows on this CPU: {})", pmus.empty() ? "none" : pmus);
}

std::vector<std::string> parse_event_list(std::string_view list) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string_view item = list.substr(start, comma - start);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
    if (item.empty()) throw std::invalid_argument(fmt::format("empty event name in '{}'", list));
    if (!seen.insert(std::string(item)).second)
      throw std::invalid_argument(fmt::format("event '{}' is listed twice", item));
    out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

}  // namespace ncp2::counters
