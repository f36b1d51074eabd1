// Stale spans: the mappings of checked regions, the views' bookkeeping and the SIGSEGV handler
// (span_checker.hpp).
#include "dsm/span_checker.hpp"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace ncp2::dsm {

namespace {

const std::size_t kHostPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
constexpr std::size_t kMaxTakes = std::size_t{1} << 20;  // spans remembered per view (for the report)

[[noreturn]] void fail(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

// Every checked region's views, for the SIGSEGV handler: a fixed table, since the handler must not
// allocate, under a spin lock that registration holds for a few instructions. (The handler runs
// on the thread that faulted; other threads may register their runs' regions meanwhile.)
struct Entry {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  SpanChecker* checker = nullptr;
  void* region = nullptr;
};
constexpr std::size_t kEntries = 4096;
std::array<Entry, kEntries> g_entries;       // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
struct sigaction g_previous {};              // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
bool g_installed = false;                    // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

class RegistryLock {
 public:
  RegistryLock() {
    while (g_lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~RegistryLock() { g_lock.clear(std::memory_order_release); }
  RegistryLock(const RegistryLock&) = delete;
  RegistryLock& operator=(const RegistryLock&) = delete;
};

// Bounded: a fault while this thread itself registers (a bug) must not hang in the handler.
bool lock_from_handler() {
  for (long i = 0; i < (1L << 28); ++i)
    if (!g_lock.test_and_set(std::memory_order_acquire)) return true;
  return false;
}

// The instruction, the word on top of the stack and the access kind of a fault.
void read_context(const void* context, std::uint64_t& pc, std::uint64_t& stack_top, int& write) {
#if defined(__x86_64__)
  const auto& m = static_cast<const ucontext_t*>(context)->uc_mcontext;
  pc = static_cast<std::uint64_t>(m.gregs[REG_RIP]);
  // The interrupted code's stack: mapped, and the handler runs on the same thread.
  stack_top = *reinterpret_cast<const std::uint64_t*>(  // NOLINT(performance-no-int-to-ptr)
      static_cast<std::uintptr_t>(m.gregs[REG_RSP]));
  write = (m.gregs[REG_ERR] & 2) != 0 ? 1 : 0;  // the page fault's error code: bit 1 is a write
#elif defined(__aarch64__)
  const auto& m = static_cast<const ucontext_t*>(context)->uc_mcontext;
  pc = m.pc;
  stack_top = m.regs[30];  // the link register: the caller, in a leaf library function
  write = -1;
#else
  (void)context;
  pc = stack_top = 0;
  write = -1;
#endif
}

// Not a span's fault: the disposition from before this handler, as if it had never been there.
void forward(int signal, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signal, info, context);
    return;
  }
  if ((g_previous.sa_flags & SA_SIGINFO) == 0 && g_previous.sa_handler != SIG_DFL &&
      g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(signal);
    return;
  }
  // The default action: returning repeats the access, which now ends the process as before (a
  // core dump at the faulting instruction).
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGSEGV, &fallback, nullptr);
}

}  // namespace

void on_segv(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (info->si_code == SEGV_ACCERR && lock_from_handler()) {
    Entry found;
    for (const Entry& e : g_entries) {
      if (e.checker != nullptr && address >= e.begin && address < e.end) {
        found = e;
        break;
      }
    }
    g_lock.clear(std::memory_order_release);
    if (found.checker != nullptr &&
        found.checker->note_fault(*static_cast<SpanChecker::Region*>(found.region), address, context))
      return;
  }
  forward(signal, info, context);
}

struct SpanChecker::Region {
  struct Take {
    std::size_t offset;
    std::size_t bytes;
    const char* file;
    int line;
  };
  struct View {
    SyncPoint closed_by;
    std::vector<Take> takes;  // the spans taken into it, for the report
  };
  struct NodeViews {
    int open = -1;  // the view of the node's current stretch; -1: none yet
    int next = 0;
    std::array<View, kViews> views;
  };

  Region() = default;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region() {
    if (entry >= 0) {
      const RegistryLock lock;
      g_entries[static_cast<std::size_t>(entry)] = Entry{};
    }
    if (views != nullptr) ::munmap(views, views_bytes());
    if (primary != nullptr) ::munmap(primary, stride * nodes.size());
  }

  [[nodiscard]] std::byte* view(int node, int v) const {
    return views + (static_cast<std::size_t>(node) * kViews + static_cast<std::size_t>(v)) * stride;
  }
  [[nodiscard]] std::size_t views_bytes() const { return nodes.size() * kViews * stride; }

  std::uint32_t id = 0;
  std::size_t stride = 0;        // bytes per node rounded up to host pages: one view
  std::byte* primary = nullptr;  // every node's copy, node after node
  std::byte* views = nullptr;    // kViews views per node, node after node
  std::vector<NodeViews> nodes;
  int entry = -1;  // in the handler's table
};

// Written by the handler, read at the node's next DSM entry (same thread).
struct SpanChecker::Pending {
  std::atomic<bool> set{false};
  std::uint32_t region = 0;
  int view = 0;
  std::size_t offset = 0;
  int write = -1;
  std::uint64_t pc = 0;
  std::uint64_t stack_top = 0;
};

SpanChecker::SpanChecker(int nodes)
    : nodes_(nodes),
      open_(static_cast<std::size_t>(nodes)),
      pending_(std::make_unique<Pending[]>(static_cast<std::size_t>(nodes))) {}  // NOLINT

SpanChecker::~SpanChecker() = default;

namespace {

// The views' table entry, and the handler once per process.
int register_views(SpanChecker* checker, void* region, std::byte* begin, std::size_t bytes) {
  const RegistryLock lock;
  if (!g_installed) {
    struct sigaction action {};
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSEGV, &action, &g_previous) != 0) fail("span checking: sigaction");
    g_installed = true;
  }
  for (std::size_t i = 0; i < kEntries; ++i) {
    if (g_entries[i].checker != nullptr) continue;
    const auto start = reinterpret_cast<std::uintptr_t>(begin);
    g_entries[i] = Entry{start, start + bytes, checker, region};
    return static_cast<int>(i);
  }
  throw std::runtime_error("span checking: more than 4096 shared arrays mapped at once in this process");
}

}  // namespace

void SpanChecker::add_region(std::uint32_t region, std::size_t bytes) {
  auto r = std::make_unique<Region>();
  r->id = region;
  r->stride = (bytes + kHostPage - 1) / kHostPage * kHostPage;
  r->nodes.resize(static_cast<std::size_t>(nodes_));
  const std::size_t total = r->stride * r->nodes.size();
  const int fd = ::memfd_create("ncp2-region", MFD_CLOEXEC);
  if (fd < 0) fail("span checking: memfd_create");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }  // the mappings keep the memory
  } closer{fd};
  if (::ftruncate(fd, static_cast<off_t>(total)) != 0) fail("span checking: ftruncate");
  void* primary = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (primary == MAP_FAILED) fail("span checking: mmap");
  r->primary = static_cast<std::byte*>(primary);
  // Address space for every view, then each view mapped over its place, closed.
  void* views =
      ::mmap(nullptr, r->views_bytes(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (views == MAP_FAILED) fail("span checking: mmap");
  r->views = static_cast<std::byte*>(views);
  for (int n = 0; n < nodes_; ++n) {
    for (int v = 0; v < kViews; ++v) {
      const auto offset = static_cast<off_t>(static_cast<std::size_t>(n) * r->stride);
      if (::mmap(r->view(n, v), r->stride, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, offset) == MAP_FAILED)
        fail("span checking: mmap (raise vm.max_map_count, or run without span checking)");
    }
  }
  r->entry = register_views(this, r.get(), r->views, r->views_bytes());
  if (regions_.size() <= region) regions_.resize(region + 1);
  regions_[region] = std::move(r);
}

std::byte* SpanChecker::primary(std::uint32_t region, int node) const {
  const Region& r = *regions_.at(region);
  return r.primary + static_cast<std::size_t>(node) * r.stride;
}

std::byte* SpanChecker::take(int node, std::uint32_t region, std::size_t offset, std::size_t bytes,
                             const char* file, int line) {
  Region& r = *regions_[region];
  Region::NodeViews& nv = r.nodes[static_cast<std::size_t>(node)];
  if (nv.open < 0) {  // the first span of the stretch: the next view of the ring
    const int v = nv.next;
    nv.next = (v + 1) % kViews;
    Region::View& view = nv.views[static_cast<std::size_t>(v)];
    view.takes.clear();
    view.closed_by = {};
    if (::mprotect(r.view(node, v), r.stride, PROT_READ | PROT_WRITE) != 0) fail("span checking: mprotect");
    nv.open = v;
    open_[static_cast<std::size_t>(node)].push_back(&r);
  }
  auto& takes = nv.views[static_cast<std::size_t>(nv.open)].takes;
  // A loop taking consecutive spans at one line is remembered as one.
  if (!takes.empty() && takes.back().file == file && takes.back().line == line &&
      offset <= takes.back().offset + takes.back().bytes && offset + bytes >= takes.back().offset) {
    Region::Take& last = takes.back();
    const std::size_t end = std::max(last.offset + last.bytes, offset + bytes);
    last.offset = std::min(last.offset, offset);
    last.bytes = end - last.offset;
  } else if (takes.size() < kMaxTakes) {
    takes.push_back({offset, bytes, file, line});
  }
  return r.view(node, nv.open);
}

void SpanChecker::synchronize(int node, SyncPoint sync) {
  auto& open = open_[static_cast<std::size_t>(node)];
  for (Region* r : open) {
    Region::NodeViews& nv = r->nodes[static_cast<std::size_t>(node)];
    if (::mprotect(r->view(node, nv.open), r->stride, PROT_NONE) != 0) fail("span checking: mprotect");
    nv.views[static_cast<std::size_t>(nv.open)].closed_by = sync;
    nv.open = -1;
  }
  open.clear();
}

bool SpanChecker::stale(int node) const {
  return pending_[static_cast<std::size_t>(node)].set.load(std::memory_order_acquire);
}

SpanChecker::StaleUse SpanChecker::take_stale(int node) {
  Pending& p = pending_[static_cast<std::size_t>(node)];
  StaleUse use;
  use.region = p.region;
  use.offset = p.offset;
  use.write = p.write;
  use.pc = p.pc;
  use.stack_top = p.stack_top;
  const Region::View& view =
      regions_[p.region]->nodes[static_cast<std::size_t>(node)].views[static_cast<std::size_t>(p.view)];
  use.closed_by = view.closed_by;
  // The latest span covering the byte.
  const auto take = std::find_if(view.takes.rbegin(), view.takes.rend(), [&p](const Region::Take& t) {
    return p.offset >= t.offset && p.offset < t.offset + t.bytes;
  });
  if (take != view.takes.rend()) {
    use.taken_file = take->file;
    use.taken_line = take->line;
  }
  p.set.store(false, std::memory_order_release);
  return use;
}

bool SpanChecker::note_fault(Region& r, std::uintptr_t address, const void* context) noexcept {
  const std::size_t at = address - reinterpret_cast<std::uintptr_t>(r.views);
  const std::size_t node = at / (kViews * r.stride);
  const auto view = static_cast<int>(at / r.stride % kViews);
  if (node >= r.nodes.size() || r.nodes[node].open == view) return false;
  Pending& p = pending_[node];
  if (!p.set.load(std::memory_order_relaxed)) {  // the node's first stale use is the one reported
    p.region = r.id;
    p.view = view;
    p.offset = at % r.stride;
    read_context(context, p.pc, p.stack_top, p.write);
    p.set.store(true, std::memory_order_release);
  }
  // The program goes on until its next DSM entry, which reports the use.
  return ::mprotect(r.views + at / kHostPage * kHostPage, kHostPage, PROT_READ | PROT_WRITE) == 0;
}

}  // namespace ncp2::dsm
