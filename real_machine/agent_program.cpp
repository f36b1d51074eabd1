// The agent's local thread: starts the program's process and serves its requests.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/node_process.hpp"
#include "tmk/host/output_relay.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::real {

using carnival::Category;
using tmk::Channel;
using tmk::Request;

NodeAgent::NodeAgent(Transport& transport, AgentOptions options, const RunClock& clock)
    : transport_(transport),
      options_(std::move(options)),
      clock_(clock),
      sites_(options_.program),
      history_(static_cast<std::size_t>(transport.size())) {
  options_.protocol.nodes = nodes();
  options_.protocol.page_size = options_.page_bytes;
  options_.protocol.diff_timing = lrc::DiffTiming::AtClose;  // the service thread never reads a written page
  directory_.add_region(static_cast<std::uint32_t>(options_.heap_bytes / options_.page_bytes), lrc::node_id(0));
  if (lrc::index(options_.protocol.barrier_manager) >= nodes())
    throw std::runtime_error(fmt::format("the barrier manager, node {}, is not one of the {} nodes",
                                         lrc::index(options_.protocol.barrier_manager), nodes()));
  if (options_.protocol.barrier_manager == lrc::node_id(self()))
    barrier_manager_ = std::make_unique<lrc::BarrierManager>(options_.protocol);
  record_.node = self();
  record_.max_segments = options_.max_segments;
  if (self() == 0) heap_ = std::make_unique<tmk::SharedHeap>(options_.heap_bytes);
}

NodeAgent::~NodeAgent() {
  stop_service();
  if (process_) process_->kill();
  if (relay_) relay_->finish();
}

void NodeAgent::stop_service() {
  stop_.store(true, std::memory_order_release);
  if (!service_.joinable()) return;
  service_.join();
  record_.segments.insert(record_.segments.end(), cp_segments_.begin(), cp_segments_.end());
  record_.segments_dropped += cp_segments_dropped_;
  cp_segments_.clear();
}

void NodeAgent::run() {
  service_ = std::thread([this] { service_loop(); });
  try {
    serve_program();
  } catch (const RunAborted&) {
    // Another node (or this one) failed: the record carries the message.
  } catch (const std::exception& e) {
    broadcast_failure(fmt::format("node {}: {}", self(), e.what()));
  }
  if (process_) {
    // After its exit request the program is still ending (atexit handlers, stdio): give it time.
    constexpr int kExitGraceMs = 10'000;
    for (int waited = 0; !aborted_.load() && waited < kExitGraceMs && process_->running(); ++waited) {
      const timespec millisecond{0, 1'000'000};
      nanosleep(&millisecond, nullptr);
    }
    process_->kill();
    record_.exit_status = process_->reap();
  }
  if (relay_) relay_->finish();
  if (record_.finish_ns == 0) record_.finish_ns = now_ns();  // it stopped without exiting
  record_.failure = abort_text_;
  {
    const std::lock_guard guard(mutex_);
    if (lrc_) record_.counters = lrc_->counters();
  }
  record_.deadlock = deadlock_.load();
  record_.add(0, Category::CPComp, "none", static_cast<double>(cp_busy_ns_.load()));
}

namespace {
int open_output(const std::string& dir, int node, const char* suffix) {
  const std::string path = fmt::format("{}/node-{}.{}", dir, node, suffix);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  return fd;
}
}  // namespace

void NodeAgent::serve_program() {
  tmk::LaunchSpec spec;
  spec.program = options_.program;
  spec.args = options_.args;
  spec.node = self();
  spec.heap_bytes = options_.heap_bytes;
  relay_ = std::make_unique<tmk::OutputRelay>();
  if (options_.output_dir.empty()) {
    spec.stdout_fd = relay_->add(self(), false);
    spec.stderr_fd = relay_->add(self(), true);
  } else {
    spec.stdout_fd = open_output(options_.output_dir, self(), "stdout");
    spec.stderr_fd = open_output(options_.output_dir, self(), "stderr");
  }
  try {
    process_ = std::make_unique<tmk::NodeProcess>(spec);
  } catch (const std::exception& e) {
    fail(fmt::format("node {}: {}", self(), e.what()));
  }
  ::close(spec.stdout_fd);
  ::close(spec.stderr_fd);
  relay_->start();
  program_pid_.store(process_->pid());
  if (aborted_.load()) ::kill(process_->pid(), SIGKILL);  // a failure came in while it started
  {
    const std::lock_guard guard(mutex_);
    memory_ = std::make_unique<HeapMemory>(std::span(process_->heap(), options_.heap_bytes), options_.page_bytes);
    lrc_ = std::make_unique<lrc::Node>(lrc::node_id(self()), options_.protocol, history_, directory_, *memory_);
    lrc_->track_access_changes();
    lrc_->add_region(0);
  }
  record_.start_ns = now_ns();
  if (process_->wait_for_request() == tmk::WaitResult::Exited) {
    if (aborted_.load()) throw RunAborted(abort_text_);
    fail(fmt::format(
        "node {}: the program {} before Tmk_startup (is it a TreadMarks program built with ncp2-cc?)", self(),
        tmk::describe_wait_status(process_->wait_status())));
  }
  while (handle_request()) {
    if (process_->resume() == tmk::WaitResult::Exited) {
      if (aborted_.load()) throw RunAborted(abort_text_);
      fail(fmt::format("node {}: the program {} without Tmk_exit", self(),
                       tmk::describe_wait_status(process_->wait_status())));
    }
  }
  barrier(lrc::kExitBarrier);
  pending_.reset();
}

bool NodeAgent::handle_request() {
  Channel& c = process_->channel();
  const double picked = now_ns();
  const double resumed = c.resumed_tsc != 0 ? program_ns(c.resumed_tsc, picked) : record_.start_ns;
  const double posted = c.resumed_tsc != 0 ? program_ns(c.resumed_tsc + c.ticks, picked) : picked;
  close_pending(resumed);
  if (c.request != Request::Startup) account_computation(resumed, posted);
  last_icount_ = c.icount;
  pending_ = std::make_unique<Pending>();
  pending_->posted_ns = std::min(posted, picked);
  pending_->picked_ns = picked;
  c.result = 0;
  replay_deferred_faults();
  switch (c.request) {
    case Request::Exit:
      exited_ = true;
      record_.finish_ns = pending_->posted_ns;
      if (c.arg0 != 0 && c.pc == 0)
        fmt::print(stderr, "ncp2: node {} exits with status {}\n", self(), c.arg0);
      return false;
    case Request::Crash:
      fail(fmt::format("node {} crashed: {}{}", self(), std::string(c.text, strnlen(c.text, tmk::kTextBytes)),
                       where()));
    case Request::Misuse:
      fail(fmt::format("node {}: {}{}", self(), std::string(c.text, strnlen(c.text, tmk::kTextBytes)),
                       where()));
    default:
      break;
  }
  if (options_.profile && c.pc != 0) pending_->scope = site_of(c.pc, c.request != Request::Fault, false);
  if (pending_->scope == 0 && !annotations_.empty()) pending_->scope = annotations_.back()->id;
  serve(c);
  reply_protections();
  pending_->replied_ns = now_ns();
  return true;
}

void NodeAgent::serve(Channel& c) {
  switch (c.request) {
    case Request::Startup:
      pending_->startup = true;
      sites_.load(c.load_base);  // the line tables, loaded now rather than inside the first timed request
      return startup();
    case Request::None:
    case Request::MoreProtections:
      return;
    case Request::Malloc:
      return malloc_request();
    case Request::Free:
      return free_request();
    case Request::Distribute:
      return distribute();
    case Request::Barrier:
      if (c.arg0 >= lrc::kMaxBarriers)
        fail(fmt::format("node {}: Tmk_barrier({}): barrier ids go from 0 to {}{}", self(), c.arg0,
                         lrc::kMaxBarriers - 1, where()));
      return barrier(static_cast<std::uint32_t>(c.arg0));
    case Request::LockAcquire:
    case Request::LockRelease: {
      const bool acquire = c.request == Request::LockAcquire;
      if (c.arg0 >= lrc::kMaxLocks)
        fail(fmt::format("node {}: Tmk_lock_{}({}): lock ids go from 0 to {}{}", self(),
                         acquire ? "acquire" : "release", c.arg0, lrc::kMaxLocks - 1, where()));
      const auto lock = static_cast<std::uint32_t>(c.arg0);
      return acquire ? lock_acquire(lock) : lock_release(lock);
    }
    case Request::Fault:
      return fault(c.arg0, c.arg1 != 0);
    default:
      fail(fmt::format(
          "node {}: the program sent an unknown request ({}): is it built with this version's ncp2-cc?",
          self(), static_cast<unsigned>(c.request)));
  }
}

// Write faults the program took at once on valid pages (tmk/runtime/write_guards.cpp): each page's
// twin is its snapshot, the page as it was before the program wrote it; before any request, so that
// an interval closed by this one diffs against them.
void NodeAgent::replay_deferred_faults() {
  Channel& c = process_->channel();
  if (c.deferred == 0) return;
  if (c.deferred > c.deferral_slots || c.deferral_slots > tmk::kMaxDeferredFaults)
    fail(fmt::format("node {}: the program reports {} write faults taken at once, beyond its {} slots{}",
                     self(), c.deferred, c.deferral_slots, where()));
  for (std::uint32_t k = 0; k < c.deferred; ++k) {
    const std::uint64_t address = c.deferred_fault[k].address;
    const lrc::PageId page{static_cast<std::uint32_t>((address - tmk::kHeapBase) / options_.page_bytes)};
    std::unique_lock guard(mutex_);
    if (address < tmk::kHeapBase || address >= tmk::kHeapBase + options_.heap_bytes ||
        !lrc_->write_is_local(page)) {
      guard.unlock();  // fail() takes the mutex
      fail(fmt::format("node {}: a write fault taken at once at {:#x} was not on a readable page{}", self(),
                       address, where()));
    }
    static lrc::NoCosts no_costs;
    memory_->show_as(page, process_->snapshots() + std::size_t{k} * options_.page_bytes);
    lrc_->begin_write(page, no_costs);
    memory_->show_as(page, nullptr);
  }
}

void NodeAgent::startup() {
  Channel& c = process_->channel();
  c.node = static_cast<std::uint32_t>(self());
  c.nodes = static_cast<std::uint32_t>(nodes());
  c.heap_base = tmk::kHeapBase;
  c.heap_bytes = options_.heap_bytes;
  c.page_bytes = options_.page_bytes;
  c.sample_period = options_.sample_instructions;
  c.deferral_slots = static_cast<std::uint32_t>(
      std::min(tmk::kMaxDeferredFaults, tmk::kSnapshotBytes / options_.page_bytes));
  // Every page's first protection, as the core gives it (FirstTouch: held by node 0 only, or by all).
  std::vector<std::uint32_t> pages(directory_.pages());
  for (std::uint32_t p = 0; p < pages.size(); ++p) pages[p] = p;
  const std::lock_guard guard(mutex_);
  add_protection_runs(pages);
}

// The pages' protections, as runs of equal protection (with mutex_ held). A readable page whose
// write fault needs only this node may be written at once (ReadLocalWrite).
void NodeAgent::add_protection_runs(std::span<const std::uint32_t> pages) {
  const auto protection = [this](std::uint32_t page) {
    const lrc::PageId p{page};
    if (lrc_->write_is_local(p)) return static_cast<std::uint32_t>(tmk::Protection::ReadLocalWrite);
    return static_cast<std::uint32_t>(lrc_->access(p));
  };
  for (std::size_t i = 0; i < pages.size();) {
    const std::uint32_t access = protection(pages[i]);
    std::size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1 && protection(pages[j]) == access) ++j;
    runs_.push_back({pages[i], static_cast<std::uint32_t>(j - i), access, 0});
    i = j;
  }
}

void NodeAgent::reply_protections() {
  Channel& c = process_->channel();
  {
    const std::lock_guard guard(mutex_);
    lrc_->take_access_changes(changed_);
    std::vector<std::uint32_t> pages = faulted_;
    for (const lrc::PageId page : changed_) pages.push_back(lrc::raw(page));
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    add_protection_runs(pages);
  }
  faulted_.clear();
  const std::size_t n = std::min(runs_.size(), tmk::kMaxProtectionRuns);
  for (std::size_t i = 0; i < n; ++i)
    c.run[i] = tmk::ProtectionRun{runs_[i][0], runs_[i][1], static_cast<tmk::Protection>(runs_[i][2]), 0};
  runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(n));
  c.protection_runs = static_cast<std::uint32_t>(n);
  c.more_protections = runs_.empty() ? 0 : 1;
  if (distribute_records_ > 0 && distribute_in_.size() <= tmk::kBulkBytes) {
    std::memcpy(process_->bulk(), distribute_in_.data(), distribute_in_.size());
    c.distributed = distribute_records_;
    distribute_in_.clear();
    distribute_records_ = 0;
  }
}

Message NodeAgent::await_reply(Tag tag, const std::function<bool(const Message&)>& matches) {
  struct Awaiting {
    std::atomic<int>& count;
    explicit Awaiting(std::atomic<int>& c) : count(c) { count.fetch_add(1, std::memory_order_release); }
    ~Awaiting() { count.fetch_sub(1, std::memory_order_release); }
    Awaiting(const Awaiting&) = delete;
    Awaiting& operator=(const Awaiting&) = delete;
  } awaiting(awaiting_);
  std::unique_lock lock(mutex_);
  for (;;) {
    if (aborted_.load()) throw RunAborted(abort_text_);
    const auto it = std::find_if(replies_.begin(), replies_.end(),
                                 [&](const Message& m) { return m.tag == tag && (!matches || matches(m)); });
    if (it != replies_.end()) {
      Message m = std::move(*it);
      replies_.erase(it);
      return m;
    }
    replies_cv_.wait(lock);
  }
}

void NodeAgent::broadcast_failure(const std::string& text, bool deadlock) {
  if (aborted_.load()) return;
  stop_program(text, deadlock);
  for (int k = 0; k < nodes(); ++k) {
    if (k == self()) continue;
    WireWriter w;
    w.u32(deadlock ? 1 : 0).text(text);
    try {
      transport_.send(k, Tag::Abort, std::move(w).take());
    } catch (const std::exception&) {
      // The peer is gone; mpirun ends the run.
    }
  }
}

void NodeAgent::fail(const std::string& text) {
  broadcast_failure(text);
  throw RunAborted(text);
}

}  // namespace ncp2::real
