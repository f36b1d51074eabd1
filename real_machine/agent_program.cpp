// The agent's local thread: starts the program's process and serves its requests.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "carnival/scope_sites.hpp"
#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/node_process.hpp"
#include "tmk/host/output_relay.hpp"

namespace ncp2::real {

using carnival::Category;
using tmk::Channel;

namespace {
// The protocol's sizes as this run has them (before anything is built on them).
AgentOptions for_run(AgentOptions options, int nodes) {
  options.protocol.nodes = nodes;
  options.protocol.page_size = options.page_bytes;
  options.protocol.copy_at_close = true;  // the service thread must never read a page being written
  return options;
}
}  // namespace

NodeAgent::NodeAgent(Transport& transport, AgentOptions options, const RunClock& clock)
    : transport_(transport),
      options_(for_run(std::move(options), transport.size())),
      clock_(clock),
      sites_(options_.program),
      history_(static_cast<std::size_t>(transport.size())),
      barriers_(transport_, clock_, options_.protocol, history_, directory_, mutex_),
      deadlock_(transport_, clock_,
                [this](const std::string& text) { broadcast_failure(text, StopKind::Deadlock); }),
      limit_(transport_, clock_, options_.max_wall_s,
             [this](const std::string& text) { broadcast_failure(text, StopKind::Limit); }) {
  directory_.add_region(static_cast<std::uint32_t>(options_.heap_bytes / options_.page_bytes),
                        lrc::kAllocatingHome);
  record_.node = self();
  record_.max_segments = options_.max_segments;
  if (self() == 0) heap_ = std::make_unique<HeapService>(transport_, options_.heap_bytes);
}

NodeAgent::~NodeAgent() {
  stop_service();
  if (process_) process_->kill();
  if (relay_) relay_->finish();
}

void NodeAgent::stop_service() {
  stop_.store(true, std::memory_order_release);
  transport_.wake();  // a service thread asleep until traffic
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
  record_.deadlock = stop_kind_.load() == StopKind::Deadlock;
  record_.limit = stop_kind_.load() == StopKind::Limit;
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
  // While the program runs its own code the local thread waits; every 50 ms it may be asked where.
  process_->set_wait_timeout([this] { answer_place_query(); });
  if (aborted_.load()) ::kill(process_->pid(), SIGKILL);  // a failure came in while it started
  server_ = std::make_unique<tmk::ChannelServer>(tmk::ChannelSizes{
      self(), nodes(), options_.heap_bytes, options_.page_bytes, options_.sample_instructions});
  {
    const std::lock_guard guard(mutex_);
    memory_ =
        std::make_unique<HeapMemory>(std::span(process_->heap(), options_.heap_bytes), options_.page_bytes);
    lrc_ =
        std::make_unique<lrc::Node>(lrc::node_id(self()), options_.protocol, history_, directory_, *memory_);
    lrc_->track_access_changes();
    lrc_->add_region(0);
    driver_ = std::make_unique<lrc::Driver>(*lrc_, exchanges_, &mutex_);
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
  // Tmk_exit's barrier, its wait the exit request's, as the emulator records it: the node's timed
  // region ends when it leaves the barrier.
  barrier(lrc::kExitBarrier);
  const double left = now_ns();
  profile_.close(left);
  record_.finish_ns = left;
}

// The program's requests, served by the channel server the emulated runs use too, run here on
// the protocol core over MPI.
class NodeAgent::Requests final : public tmk::RequestHandler {
 public:
  explicit Requests(NodeAgent& agent) : a_(agent) {}
  void begin_request(const Channel& c) override { a_.profile_.scope_at_call(c); }
  void startup() override { a_.startup(); }
  std::pair<std::uint64_t, std::string> malloc(std::uint64_t bytes) override {
    return a_.malloc_request(bytes);
  }
  bool free(std::uint64_t address) override { return a_.free_request(address); }
  void distribute(std::vector<std::byte> record) override {
    const std::lock_guard guard(a_.mutex_);
    a_.barriers_.distribute(std::move(record));
  }
  void barrier(std::uint32_t id) override { a_.barrier(id); }
  void lock_acquire(std::uint32_t lock) override { a_.lock_acquire(lock); }
  void lock_release(std::uint32_t lock) override { a_.lock_release(lock); }
  void fault(std::uint32_t page, bool write) override { a_.fault(lrc::PageId{page}, write); }
  void exit(std::uint64_t /*status*/) override {
    a_.exited_ = true;
    a_.profile_.scope_at_exit(a_.process_->channel());
  }
  [[nodiscard]] std::string where() const override { return a_.where(); }
  [[noreturn]] void abort(const std::string& text) override { a_.fail(text); }

 private:
  NodeAgent& a_;
};

bool NodeAgent::handle_request() {
  answer_place_query();
  Channel& c = process_->channel();
  const double picked = now_ns();
  const double resumed = c.resumed_tsc != 0 ? program_ns(c.resumed_tsc, picked) : record_.start_ns;
  const double posted = c.resumed_tsc != 0 ? program_ns(c.resumed_tsc + c.ticks, picked) : picked;
  profile_.request_taken(c, resumed, posted, picked);
  Requests requests(*this);
  replay_deferred_faults(requests);
  if (!server_->serve(c, process_->bulk(), requests)) return false;
  reply_protections();
  profile_.replied(now_ns());
  return true;
}

// Write faults the program took at once on valid pages (tmk/runtime/write_guards.cpp): each page's
// twin is its snapshot, the page as it was before the program wrote it; before any request, so that
// an interval closed by this one diffs against them.
void NodeAgent::replay_deferred_faults(tmk::RequestHandler& h) {
  const Channel& c = process_->channel();
  const std::span<const tmk::DeferredFault> faults = server_->deferred_faults(c, h);
  for (std::size_t k = 0; k < faults.size(); ++k) {
    const lrc::PageId page{server_->page_of(faults[k].address, h, "a write fault taken at once")};
    bool local = false;
    {
      const std::lock_guard guard(mutex_);
      local = lrc_->write_is_local(page);
      if (local) memory_->show_as(page, process_->snapshots() + k * options_.page_bytes);
    }
    if (!local)
      server_->fail(h, fmt::format("a write fault taken at once at {:#x} was not on a readable page",
                                   faults[k].address));
    driver_->access(page, lrc::Access::Write);  // the write fault, taken by the driver as every one
    const std::lock_guard guard(mutex_);
    memory_->show_as(page, nullptr);
  }
  {
    // Told now: the service thread no longer serves their pages as the snapshots (untold_write_snapshot),
    // which the request may make out of date (a barrier closing the interval, a collection).
    const std::lock_guard guard(mutex_);
    std::atomic_ref(process_->channel().deferred).store(0, std::memory_order_release);
  }
  profile_.forget_operation();  // the request's own operation follows
}

void NodeAgent::startup() {
  profile_.joining();
  sites_.load(process_->channel().load_base);  // the line tables, now rather than inside a timed request
  {
    // Every page's first protection, as the core gives it (FirstTouch: held by node 0 only, or by all).
    const std::lock_guard guard(mutex_);
    lrc_->take_access_changes(changed_);
    server_->all_protections([this](std::uint32_t page) { return protection(page); });
  }
  // A common start, as an emulated run's nodes start together: every node's program resumes from
  // Tmk_startup once every node has reached it (a hello to each, one from each; the timed region
  // starts there). A node that fails first stops the others' wait (await_reply, Abort).
  for (int k = 0; k < nodes(); ++k)
    if (k != self()) transport_.send(k, Tag::Hello, {});
  for (int k = 1; k < nodes(); ++k) (void)await_reply(Tag::Hello);
}

// A page's protection for the program: its access, and whether a write fault may be taken at once
// (readable, and its write fault needs only this node). With mutex_ held.
tmk::Protection NodeAgent::protection(std::uint32_t page) const {
  const lrc::PageId p{page};
  return tmk::protection_for(lrc_->access(p), lrc_->write_is_local(p));
}

void NodeAgent::reply_protections() {
  Channel& c = process_->channel();
  {
    const std::lock_guard guard(mutex_);
    lrc_->take_access_changes(changed_);
    for (const lrc::PageId page : changed_) faulted_.push_back(lrc::raw(page));
    server_->protections_changed(faulted_, [this](std::uint32_t page) { return protection(page); });
  }
  faulted_.clear();
  server_->fill_reply(c, process_->bulk());
}

Message NodeAgent::await_reply(Tag tag, const std::function<bool(const Message&)>& matches) {
  struct Awaiting {
    std::atomic<int>& count;
    explicit Awaiting(std::atomic<int>& c) : count(c) { count.fetch_add(1, std::memory_order_seq_cst); }
    ~Awaiting() { count.fetch_sub(1, std::memory_order_release); }
    Awaiting(const Awaiting&) = delete;
    Awaiting& operator=(const Awaiting&) = delete;
  } awaiting(awaiting_);
  // The reply must not wait for the service thread to wake: wake it now, while the request travels.
  if (service_asleep_.load(std::memory_order_seq_cst)) transport_.wake();
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

void NodeAgent::broadcast_failure(const std::string& text, StopKind kind) {
  if (aborted_.load()) return;
  stop_program(text, kind);
  for (int k = 0; k < nodes(); ++k) {
    if (k == self()) continue;
    WireWriter w;
    w.u32(static_cast<std::uint32_t>(kind)).text(text);
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

std::string NodeAgent::where() const { return process_ ? sites_.where(process_->channel()) : std::string(); }

void NodeAgent::answer_place_query() {
  limit_.answer_if_asked([this] { return exited_ ? std::string("had exited") : place(); });
}

std::string NodeAgent::place() const {
  std::string text = "in the program";
  const std::uint32_t scope = profile_.current_scope();
  const auto sites = carnival::scope_sites();
  if (scope != 0 && scope <= sites.size()) {
    const carnival::ScopeSite& site = *sites[scope - 1];
    text = fmt::format("in {} ({}:{})", site.name, std::filesystem::path(site.file).filename().string(),
                       site.line);
  }
  if (const std::string last = where(); !last.empty()) text += ", last seen by its agent" + last;
  return text;
}

}  // namespace ncp2::real
