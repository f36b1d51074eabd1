#include "dsm/runtime.hpp"

#include <cmath>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "dsm/process.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::Resource;
using emu::StampPoint;
using emu::WorkContext;

std::string_view to_string(Operation op) {
  switch (op) {
    case Operation::None:
      return "none";
    case Operation::PageFault:
      return "page fault";
    case Operation::DiffFetch:
      return "diff fetch";
    case Operation::WriteFault:
      return "write fault";
    case Operation::LockAcquire:
      return "lock acquire";
    case Operation::LockRelease:
      return "lock release";
    case Operation::Barrier:
      return "barrier";
    case Operation::GarbageCollection:
      return "garbage collection";
    case Operation::Exit:
      return "exit";
  }
  return "?";
}

std::string_view purpose_name(std::uint16_t purpose) {
  switch (purpose) {
    case kPageRequest:
      return "page_request";
    case kPageReply:
      return "page_reply";
    case kDiffRequest:
      return "diff_request";
    case kDiffReply:
      return "diff_reply";
    case kLockRequest:
      return "lock_request";
    case kLockForward:
      return "lock_forward";
    case kLockGrant:
      return "lock_grant";
    case kBarrierArrival:
      return "barrier_arrival";
    case kBarrierRelease:
      return "barrier_release";
    default:
      return "other";
  }
}

void Process::compute_cycles(std::int64_t cycles) {
  compute(emu::cycles_at(cycles, runtime_->cluster().config().pp.clock_mhz));
}

double Process::cycles_of(const OpCounts& ops) const {
  const emu::CostConfig& cost = runtime_->cluster().config().cost;
  return ops.flops * cost.flop + ops.int_ops * cost.int_op + ops.loads * cost.load + ops.stores * cost.store +
         ops.branches * cost.branch;
}

void Process::charge(const OpCounts& ops) {
  // Rounded to whole cycles so the same counts always give the same time, whatever the grouping.
  compute_cycles(std::llround(cycles_of(ops)));
}

namespace {

struct FreeDeleter {
  void operator()(std::byte* p) const { std::free(p); }  // NOLINT(cppcoreguidelines-no-malloc)
};

// Zeroed memory from calloc: large regions come from the OS as untouched zero pages, so a node
// that never holds a page costs no host memory for it.
std::unique_ptr<std::byte[], FreeDeleter> zeroed(std::size_t bytes) {
  auto* p = static_cast<std::byte*>(std::calloc(bytes == 0 ? 1 : bytes, 1));  // NOLINT
  if (!p) throw std::bad_alloc();
  return std::unique_ptr<std::byte[], FreeDeleter>(p);
}

void encode_vt(std::vector<std::byte>& out, const VectorTime& vt) {
  out.resize(vt.size() * 4);
  std::memcpy(out.data(), vt.data(), out.size());
}
VectorTime decode_vt(const std::vector<std::byte>& in, std::size_t nodes) {
  VectorTime vt(nodes);
  std::memcpy(vt.data(), in.data(), std::min(in.size(), nodes * 4));
  return vt;
}
void merge_into(VectorTime& into, const VectorTime& other) {
  for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], other[i]);
}

// Marks the PP as running TreadMarks code for `op` (Extra, not Comp) while in scope.
class OperationScope {
 public:
  OperationScope(emu::Processor& pp, Operation op) : pp_(pp), previous_(pp.attribution().operation) {
    pp_.set_operation(static_cast<std::uint8_t>(op));
  }
  ~OperationScope() { pp_.set_operation(previous_); }
  OperationScope(const OperationScope&) = delete;
  OperationScope& operator=(const OperationScope&) = delete;

 private:
  emu::Processor& pp_;
  std::uint8_t previous_;
};

constexpr std::uint32_t kExitBarrier = kMaxBarriers;    // reserved: the implicit Tmk_exit barrier
constexpr std::uint32_t kGcBarrier = kMaxBarriers + 1;  // reserved: the second barrier of a GC

std::string barrier_name(std::uint32_t id) {
  if (id == kExitBarrier) return "the exit barrier";
  if (id == kGcBarrier) return "the garbage-collection barrier";
  return fmt::format("barrier {}", id);
}

}  // namespace

struct Runtime::PageState {
  bool held = false;                // this node has a copy (possibly stale)
  std::vector<std::byte> twin;      // pre-write copy (ncp2: stands for the CP's write log)
  std::uint32_t twin_interval = 0;  // own interval whose writes the twin separates; 0: none
  std::vector<std::pair<NodeId, std::uint32_t>> notices;  // (writer, interval) not yet applied
  struct OwnDiff {
    std::uint32_t interval = 0;
    Diff diff;
  };
  // This node's diffs of the page, one per own interval that wrote it, until a GC. Kept with the
  // page (few per page; capacity reused after a GC) instead of in a hash map: no node allocation
  // and no hashing per diff.
  std::vector<OwnDiff> diffs;
};

struct Runtime::NodeState {
  struct Region {
    std::unique_ptr<std::byte[], FreeDeleter> data;
    std::vector<std::uint8_t> access;
  };
  struct LockState {
    bool token = false;  // this node was the last holder and may re-acquire without messages
    bool held = false;
    bool requested = false;
    bool has_next = false;
    NodeId next{};
    Message* next_request = nullptr;
  };

  NodeId id{};
  emu::Processor* pp = nullptr;
  VectorTime vt;
  std::vector<PageId> dirty;  // pages written in the current interval
  std::vector<PageState> pages;
  std::vector<Region> regions;
  std::uint32_t allocations = 0;
  std::size_t diff_bytes = 0;
  std::size_t notice_count = 0;
  std::unordered_map<std::uint32_t, LockState> locks;

  // The current wait (one at a time: the PP is blocked in it).
  bool done = false;
  emu::TimePoint wait_start;
  Operation wait_op = Operation::None;
  std::uint64_t wait_object = 0;
  std::uint32_t wait_requests = 1;
  const Runtime* runtime = nullptr;  // for describing the wait in a deadlock diagnosis
  emu::StampChain chain;
  int outstanding = 0;
  std::vector<ReceivedDiff> received;
  std::vector<std::byte> receive_buffer;                   // the received diffs' bytes, capacity reused
  std::vector<std::byte> reply_buffer;                     // a diff reply under construction, capacity reused
  std::vector<std::vector<std::byte>> spare_twins;         // twin buffers to reuse
  std::vector<std::vector<std::byte>> spare_diff_buffers;  // diff encodings discarded by a GC, to reuse
  std::vector<Message*> fanout;                            // requests a LOCAL_*_REQUEST command sends (ncp2)
  bool release_gc = false;

  bool exited = false;
  emu::TimePoint exit_time;
  NodeStats stats;
};

// ------------------------------------------------------------------------------------------------
// Construction, allocation, accessors

Runtime::Runtime(emu::Kernel& kernel, emu::Cluster& cluster)
    : kernel_(kernel),
      cluster_(cluster),
      config_(cluster.config()),
      page_size_(static_cast<std::size_t>(cluster.config().memory.page_size)),
      page_shift_(0) {
  while ((std::size_t{1} << page_shift_) < page_size_) ++page_shift_;
  const int n = cluster.size();
  intervals_.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto ns = std::make_unique<NodeState>();
    ns->id = emu::node_id(i);
    ns->pp = &cluster.pp(emu::node_id(i));
    ns->vt.assign(static_cast<std::size_t>(n), 0);
    ns->runtime = this;
    nodes_.push_back(std::move(ns));
    processes_.push_back(std::make_unique<Process>(*this, emu::node_id(i), page_size_));
  }
  barrier_.merged.assign(static_cast<std::size_t>(n), 0);
  barrier_.waiting.assign(static_cast<std::size_t>(n), nullptr);
  barrier_.arrival_vt.assign(static_cast<std::size_t>(n), VectorTime(static_cast<std::size_t>(n), 0));

  if (cluster.has_cp()) {
    local_page_request_ = cluster.command("local_page_request");
    local_diff_request_ = cluster.command("local_diff_request");
    send_message_ = cluster.send_command();
    cluster.set_receive_command(kPageRequest, cluster.command("remote_page_request"));
    cluster.set_receive_command(kPageReply, cluster.command("page_reply"));
    cluster.set_receive_command(kDiffRequest, cluster.command("remote_diff_request"));
    cluster.set_receive_command(kDiffReply, cluster.command("diff_reply"));
    cluster.set_receive_command(kLockRequest, cluster.command("lock_request"));
    cluster.set_receive_command(kLockForward, cluster.command("lock_request"));
    cluster.set_receive_command(kLockGrant, cluster.command("lock_grant"));
    cluster.set_receive_command(kBarrierArrival, cluster.command("receive_message"));
    cluster.set_receive_command(kBarrierRelease, cluster.command("apply_invalidations"));
  }
  // What each incoming message is for the PP that handles it (treadmarks): a service to another
  // node (Prste), or the answer to its own wait.
  auto tag = [](bool service, Operation op) {
    return emu::HandlerTag{service, static_cast<std::uint8_t>(op)};
  };
  cluster.set_purpose_tag(kPageRequest, tag(true, Operation::PageFault));
  cluster.set_purpose_tag(kPageReply, tag(false, Operation::PageFault));
  cluster.set_purpose_tag(kDiffRequest, tag(true, Operation::DiffFetch));
  cluster.set_purpose_tag(kDiffReply, tag(false, Operation::DiffFetch));
  cluster.set_purpose_tag(kLockRequest, tag(true, Operation::LockAcquire));
  cluster.set_purpose_tag(kLockForward, tag(true, Operation::LockAcquire));
  cluster.set_purpose_tag(kLockGrant, tag(false, Operation::LockAcquire));
  cluster.set_purpose_tag(kBarrierArrival, tag(true, Operation::Barrier));
  cluster.set_purpose_tag(kBarrierRelease, tag(false, Operation::Barrier));
  cluster.set_receiver([this](WorkContext& ctx, Message* m) { on_message(ctx, m); });
}

Runtime::~Runtime() = default;

Process& Runtime::process(NodeId n) { return *processes_.at(static_cast<std::size_t>(emu::index(n))); }
const NodeStats& Runtime::stats(NodeId n) const {
  return nodes_.at(static_cast<std::size_t>(emu::index(n)))->stats;
}
Runtime::NodeState& Runtime::self(NodeId n) { return *nodes_[static_cast<std::size_t>(emu::index(n))]; }
emu::TimePoint Runtime::exit_time(NodeId n) const {
  return nodes_.at(static_cast<std::size_t>(emu::index(n)))->exit_time;
}

emu::TimePoint Runtime::timed_end() const {
  emu::TimePoint end = emu::kTimeZero;
  for (const auto& ns : nodes_) end = std::max(end, ns->exit_time);
  return end;
}

NodeId Runtime::lock_manager(LockId lock) const {
  return emu::node_id(static_cast<int>(raw(lock) % nodes_.size()));
}

const RegionInfo& Runtime::region_of(PageId page) const { return regions_[page_region_[raw(page)]]; }

Runtime::PageState& Runtime::page_state(NodeId n, PageId page) { return self(n).pages[raw(page)]; }

std::span<std::byte> Runtime::page_bytes(NodeId n, PageId page) {
  const std::uint32_t r = page_region_[raw(page)];
  const std::size_t local = raw(page) - regions_[r].first_page;
  return {self(n).regions[r].data.get() + local * page_size_, page_size_};
}

std::byte* Runtime::region_data(NodeId n, std::uint32_t region) {
  return self(n).regions.at(region).data.get();
}
const std::uint8_t* Runtime::region_access(NodeId n, std::uint32_t region) {
  return self(n).regions.at(region).access.data();
}

std::uint32_t Runtime::allocate(NodeId n, std::string_view name, std::size_t count,
                                std::size_t element_size) {
  NodeState& ns = self(n);
  if (count == 0)
    throw DsmError(fmt::format("node {}: shared array '{}' of zero elements", emu::index(n), name));
  if (element_size == 0 || page_size_ % element_size != 0)
    throw DsmError(fmt::format("node {}: shared array '{}': element size {} must divide the page size {}",
                               emu::index(n), name, element_size, page_size_));
  const std::uint32_t k = ns.allocations++;
  if (k < regions_.size()) {
    const RegionInfo& r = regions_[k];
    if (r.name != name || r.count != count || r.element_size != element_size)
      throw DsmError(fmt::format(
          "allocation mismatch: node {} allocates '{}' ({} x {} B) as its allocation #{}, which node(s) "
          "before it allocated as '{}' ({} x {} B); every process must allocate the same arrays in the same "
          "order",
          emu::index(n), name, count, element_size, k, r.name, r.count, r.element_size));
    return k;
  }
  RegionInfo r;
  r.name = std::string(name);
  r.count = count;
  r.element_size = element_size;
  r.first_page = static_cast<std::uint32_t>(page_region_.size());
  r.pages = static_cast<std::uint32_t>((count * element_size + page_size_ - 1) / page_size_);
  r.home = emu::node_id(0);
  const std::size_t bytes = static_cast<std::size_t>(r.pages) * page_size_;
  // Alone, a node has nothing to keep coherent: its pages are writable from the start, so a
  // one-node run costs what the sequential program does (the papers' speedup baseline).
  const Access home_access = nodes_.size() == 1 ? Access::Write : Access::Read;
  for (auto& node : nodes_) {
    const bool home = node->id == r.home;
    node->regions.push_back(
        {zeroed(bytes),
         std::vector<std::uint8_t>(r.pages, static_cast<std::uint8_t>(home ? home_access : Access::None))});
    node->pages.resize(node->pages.size() + r.pages);
    for (std::uint32_t p = 0; p < r.pages; ++p) node->pages[r.first_page + p].held = home;
  }
  page_region_.resize(page_region_.size() + r.pages, k);
  regions_.push_back(std::move(r));
  return k;
}

void Runtime::out_of_range(NodeId n, std::uint32_t region, std::size_t index, std::size_t count) const {
  throw DsmError(fmt::format("node {}: index {} is out of range for shared array '{}' of {} elements",
                             emu::index(n), index, regions_.at(region).name, count));
}

// ---- measured time model (docs/timing.md, dsm/compute_meter.hpp) --------------------------------
// At a DSM entry, the native stretch that just ended is charged to the PP as computation (before
// the entry's own work, so it is Comp in the current scope); when the entry returns, the next
// stretch starts. One null test per entry when no meter is installed.
class Runtime::MeasuredEntry {
 public:
  MeasuredEntry(Runtime& runtime, NodeId n) : meter_(runtime.meter_), node_(n) {
    if (meter_) [[unlikely]]
      runtime.self(n).pp->compute(meter_->end_stretch(n));
  }
  ~MeasuredEntry() {
    if (meter_) [[unlikely]]
      meter_->resume(node_);
  }
  MeasuredEntry(const MeasuredEntry&) = delete;
  MeasuredEntry& operator=(const MeasuredEntry&) = delete;

 private:
  ComputeMeter* meter_;
  NodeId node_;
};

void Runtime::compute(NodeId n, emu::Duration d) {
  if (meter_) [[unlikely]] {  // measured model: the annotation is ignored, the measured stretch charged
    const MeasuredEntry entry(*this, n);
    return;
  }
  self(n).pp->compute(d);
}
// ---- end of the measured time model's part -------------------------------------------------------

void Runtime::start(std::function<void(Process&)> body, std::function<void(Process&)> after_exit) {
  for (auto& node : nodes_) {
    NodeState* ns = node.get();
    ns->pp->start([this, ns, body, after_exit] {
      Process& p = process(ns->id);
      if (meter_) meter_->begin(ns->id);  // measured time model: the first stretch
      body(p);
      if (meter_) {  // ... and the last one, charged at Tmk_exit
        ns->pp->compute(meter_->end_stretch(ns->id));
        meter_->finish(ns->id);
      }
      barrier_episode(*ns, BarrierId{kExitBarrier}, false);  // Tmk_exit
      ns->exited = true;
      ns->exit_time = kernel_.now();
      for (const auto& [id, observer] : exit_observers_) observer(ns->id, ns->exit_time);
      if (after_exit) after_exit(p);
    });
  }
}

// ------------------------------------------------------------------------------------------------
// Messages

Message* Runtime::new_message(NodeId from, NodeId to, std::uint16_t purpose, std::size_t payload) {
  return cluster_.new_message(from, to, purpose, static_cast<std::uint32_t>(payload));
}

void Runtime::count_send(NodeId from, const Message* m) {
  NodeStats& s = self(from).stats;
  ++s.messages;
  s.bytes += m->payload_bytes + static_cast<std::uint64_t>(config_.network.header_bytes);
  if (m->purpose < kPurposeEnd) ++s.messages_by_purpose[m->purpose];
}

void Runtime::send_from_handler(WorkContext& ctx, Message* m) {
  count_send(ctx.node(), m);
  cluster_.send_from(ctx, m);
}

void Runtime::send_from_fiber(NodeState& ns, Message* m) {
  count_send(ns.id, m);
  cluster_.send_from_pp(m);
}

// Sends the request(s) of a wait from the PP's fiber. ncp2: the PP posts one LOCAL_* command to
// its CP and starts waiting (t0); the CP sends the request(s). treadmarks: the PP starts waiting
// and runs the software send path itself, which is part of the wait (the "CP rows" of Table 1).
void Runtime::send_request(NodeState& ns, Message* first, LocalCommand local_command) {
  if (ns.fanout.empty()) ns.fanout.push_back(first);
  if (cluster_.has_cp()) {
    ns.pp->compute(config_.pp.command_post);
    ns.wait_start = kernel_.now();
    ns.pp->set_in_wait(true);
    first->chain.add(ns.wait_start, StampPoint::WaitBegin, Resource::PP, ns.id);
    const emu::CommandKind kind = local_command == LocalCommand::PageRequest   ? local_page_request_
                                  : local_command == LocalCommand::DiffRequest ? local_diff_request_
                                                                               : send_message_;
    cluster_.node(ns.id).cp->submit(kind, first, [this](WorkContext& ctx, Message* tmpl) {
      NodeState& s = self(ctx.node());
      if (s.fanout.size() == 1) {  // one request (a page, or one writer's diffs): nothing to share
        send_from_handler(ctx, s.fanout.front());
        s.fanout.clear();
        return;
      }
      const emu::StampChain base = tmpl->chain;  // t0..t1, shared by all requests
      for (Message* r : s.fanout) {
        if (r != tmpl) r->chain = base;
        send_from_handler(ctx, r);
      }
      s.fanout.clear();
    });
  } else {
    ns.wait_start = kernel_.now();
    ns.pp->set_in_wait(true);  // the software send path is part of the wait (CPLComp)
    std::vector<Message*> requests;
    requests.swap(ns.fanout);
    for (Message* r : requests) {
      r->chain.add(ns.wait_start, StampPoint::WaitBegin, Resource::PP, ns.id);
      send_from_fiber(ns, r);
    }
  }
}

std::string Runtime::describe_wait(const void* node_state) {
  const auto& ns = *static_cast<const NodeState*>(node_state);
  const Runtime& rt = *ns.runtime;
  switch (ns.wait_op) {
    case Operation::PageFault: {
      const PageId page{static_cast<std::uint32_t>(ns.wait_object)};
      return fmt::format("page {} of '{}' from node {}", raw(page), rt.region_of(page).name,
                         emu::index(rt.page_home(page)));
    }
    case Operation::DiffFetch: {
      const PageId page{static_cast<std::uint32_t>(ns.wait_object)};
      return fmt::format("diffs of page {} of '{}' from {} writer(s)", raw(page), rt.region_of(page).name,
                         ns.wait_requests);
    }
    case Operation::LockAcquire:
      return fmt::format("lock {}", ns.wait_object);
    case Operation::Barrier:
      return barrier_name(static_cast<std::uint32_t>(ns.wait_object));
    default:
      return std::string(to_string(ns.wait_op));
  }
}

void Runtime::wait_until_done(NodeState& ns, Operation op, std::uint64_t object) {
  ns.wait_op = op;
  ns.wait_object = object;
  while (!ns.done) ns.pp->wait(&Runtime::describe_wait, &ns);
  ns.done = false;
  ns.pp->set_in_wait(false);
  ns.chain.add(kernel_.now(), StampPoint::PpResumed, Resource::PP, ns.id);
  emit_wait(ns);
  ns.wait_op = Operation::None;
  ns.wait_requests = 1;
}

int Runtime::add_wait_observer(WaitObserver observer) {
  wait_observers_.emplace_back(next_observer_id_, std::move(observer));
  return next_observer_id_++;
}

void Runtime::remove_wait_observer(int id) {
  std::erase_if(wait_observers_, [id](const auto& o) { return o.first == id; });
}

int Runtime::add_exit_observer(ExitObserver observer) {
  exit_observers_.emplace_back(next_observer_id_, std::move(observer));
  return next_observer_id_++;
}

void Runtime::remove_exit_observer(int id) {
  std::erase_if(exit_observers_, [id](const auto& o) { return o.first == id; });
}

void Runtime::emit_wait(NodeState& ns) {
  if (wait_observers_.empty()) return;
  WaitRecord w;
  w.node = ns.id;
  w.operation = ns.wait_op;
  w.object = ns.wait_object;
  w.requests = ns.wait_requests;
  w.start = ns.wait_start;
  w.end = kernel_.now();
  w.chain = ns.chain;
  for (const auto& [id, observer] : wait_observers_) observer(w);
}

// The last answer of a wait has been processed in `ctx` (the CP on ncp2, the PP on treadmarks):
// keep its chain and tell the PP, which resumes.
void Runtime::finish_wait(WorkContext& ctx, NodeState& ns, Message* reply) {
  const Resource where = ctx.resource();
  reply->chain.add(ctx.now(), where == Resource::CP ? StampPoint::CpFinished : StampPoint::PpHandlerEnd,
                   where, ns.id);
  if (where == Resource::CP) reply->chain.add(ctx.now(), StampPoint::PpInterrupted, Resource::PP, ns.id);
  ns.chain = reply->chain;
  const bool by_interrupt = where == Resource::CP;
  cluster_.notify_pp(
      ctx,
      [this, node = ns.id, by_interrupt](WorkContext& c) {
        NodeState& s = self(node);
        if (by_interrupt) s.chain.add(c.start(), StampPoint::PpHandlerStart, Resource::PP, node);
        s.done = true;
        s.pp->wake();
      },
      emu::HandlerTag{false, static_cast<std::uint8_t>(ns.wait_op)});
}

void Runtime::on_message(WorkContext& ctx, Message* m) {
  switch (m->purpose) {
    case kPageRequest:
      serve_page_request(ctx, m);
      break;
    case kPageReply:
      receive_page(ctx, m);
      break;
    case kDiffRequest:
      serve_diff_request(ctx, m);
      break;
    case kDiffReply:
      receive_diffs(ctx, m);
      break;
    case kLockRequest:
    case kLockForward:
      on_lock_request(ctx, m);
      break;
    case kLockGrant:
      receive_grant(ctx, m);
      break;
    case kBarrierArrival:
      on_barrier_arrival(ctx, m);
      break;
    case kBarrierRelease:
      receive_release(ctx, m);
      break;
    default:
      throw std::logic_error(
          fmt::format("node {}: message of unknown purpose {}", emu::index(ctx.node()), m->purpose));
  }
}

// ------------------------------------------------------------------------------------------------
// Intervals, write notices, diffs

void Runtime::close_interval(NodeState& ns) {
  if (ns.dirty.empty()) return;
  ns.pp->compute(config_.dsm.per_write_notice * static_cast<std::int64_t>(ns.dirty.size()));
  const auto me = static_cast<std::size_t>(emu::index(ns.id));
  ++ns.vt[me];
  IntervalRecord rec;
  rec.vt = ns.vt;
  rec.pages = ns.dirty;
  for (auto v : rec.vt) rec.order_key += v;
  intervals_[me].push_back(std::move(rec));
  for (PageId page : ns.dirty) {
    const std::uint32_t r = page_region_[raw(page)];
    auto& access = ns.regions[r].access[raw(page) - regions_[r].first_page];
    if (access == static_cast<std::uint8_t>(Access::Write)) access = static_cast<std::uint8_t>(Access::Read);
  }
  ns.dirty.clear();
}

std::size_t Runtime::intervals_bytes(const VectorTime& from, const VectorTime& to) const {
  std::size_t bytes = 0;
  for (std::size_t q = 0; q < to.size(); ++q)
    for (std::uint32_t i = from[q] + 1; i <= to[q]; ++i)
      bytes += 8 + 4 * to.size() + 4 * intervals_[q][i - 1].pages.size();
  return bytes;
}

std::size_t Runtime::usage_bytes(const NodeState& ns) const { return ns.diff_bytes + ns.notice_count * 8; }

// The diff of `page` for own interval `interval`, created from the twin if not yet done. On the
// treadmarks machine software does it on the PP (cost per word); on ncp2 the CP's hardware does
// it (its command cost covers it). The reference stays valid until the page's next diff is made.
const Diff& Runtime::make_diff(NodeState& ns, PageId page, std::uint32_t interval, WorkContext* ctx) {
  PageState& ps = ns.pages[raw(page)];
  for (const auto& own : ps.diffs)
    if (own.interval == interval) return own.diff;
  if (ps.twin.empty() || ps.twin_interval != interval)
    throw std::logic_error(fmt::format("node {} has no diff and no twin for page {} interval {}",
                                       emu::index(ns.id), raw(page), interval));
  std::vector<std::byte> storage;
  if (!ns.spare_diff_buffers.empty()) {
    storage = std::move(ns.spare_diff_buffers.back());
    ns.spare_diff_buffers.pop_back();
  }
  Diff d = Diff::between(ps.twin, page_bytes(ns.id, page), config_.memory.word_size, std::move(storage));
  if (!cluster_.has_cp()) {
    const auto words =
        static_cast<std::int64_t>(page_size_ / static_cast<std::size_t>(config_.memory.word_size));
    const emu::Duration cost = config_.dsm.diff_scan_per_word * words;
    if (ctx)
      ctx->spend(cost);
    else
      ns.pp->compute(cost);
  }
  ps.twin.clear();
  ns.spare_twins.push_back(std::move(ps.twin));
  ps.twin = {};
  ps.twin_interval = 0;
  ++ns.stats.diffs_created;
  ns.diff_bytes += d.encoded_bytes();
  ps.diffs.push_back({interval, std::move(d)});
  return ps.diffs.back().diff;
}

// Learns the intervals up to `learned`: each page they wrote gets a write notice and is
// invalidated (its own pending modifications are first saved as a diff).
void Runtime::apply_intervals(NodeState& ns, const VectorTime& learned, WorkContext* ctx) {
  const auto me = static_cast<std::size_t>(emu::index(ns.id));
  std::size_t notices = 0;
  for (std::size_t q = 0; q < learned.size(); ++q) {
    if (q == me) continue;
    for (std::uint32_t i = ns.vt[q] + 1; i <= learned[q]; ++i) {
      for (PageId page : intervals_[q][i - 1].pages) {
        PageState& ps = ns.pages[raw(page)];
        ps.notices.emplace_back(emu::node_id(static_cast<int>(q)), i);
        ++notices;
        if (!ps.twin.empty()) make_diff(ns, page, ps.twin_interval, ctx);
        const std::uint32_t r = page_region_[raw(page)];
        ns.regions[r].access[raw(page) - regions_[r].first_page] = static_cast<std::uint8_t>(Access::None);
      }
    }
  }
  merge_into(ns.vt, learned);
  ns.notice_count += notices;
  ns.stats.write_notices += notices;
  const emu::Duration cost = config_.dsm.per_write_notice * static_cast<std::int64_t>(notices);
  if (ctx)
    ctx->spend(cost);
  else
    ns.pp->compute(cost);
}

// ------------------------------------------------------------------------------------------------
// Faults: page requests and diff requests

void Runtime::fault(NodeId n, std::uint32_t region, std::uint32_t local_page, Access wanted) {
  const MeasuredEntry measured(*this, n);
  NodeState& ns = self(n);
  const PageId page{regions_.at(region).first_page + local_page};
  validate_page(ns, page, wanted);
}

void Runtime::validate_page(NodeState& ns, PageId page, Access wanted) {
  PageState& ps = ns.pages[raw(page)];
  const std::uint32_t r = page_region_[raw(page)];
  const std::uint32_t local = raw(page) - regions_[r].first_page;
  if (ns.regions[r].access[local] == static_cast<std::uint8_t>(Access::None)) {
    OperationScope op(*ns.pp, ps.held ? Operation::DiffFetch : Operation::PageFault);
    ++ns.stats.page_faults;
    ns.pp->compute(config_.dsm.fault_trap);
    if (!ps.held) fetch_page(ns, page);
    if (!ns.pages[raw(page)].notices.empty()) {
      ns.pp->set_operation(static_cast<std::uint8_t>(Operation::DiffFetch));
      fetch_diffs(ns, page);
    }
    ns.regions[r].access[local] = static_cast<std::uint8_t>(Access::Read);
  }
  if (wanted == Access::Write && ns.regions[r].access[local] != static_cast<std::uint8_t>(Access::Write)) {
    OperationScope op(*ns.pp, Operation::WriteFault);
    begin_write(ns, page);
  }
}

void Runtime::fetch_page(NodeState& ns, PageId page) {
  const NodeId home = page_home(page);
  ++ns.stats.page_requests;
  Message* m = new_message(ns.id, home, kPageRequest, 8);
  m->words[0] = raw(page);
  send_request(ns, m, LocalCommand::PageRequest);
  wait_until_done(ns, Operation::PageFault, raw(page));
}

void Runtime::serve_page_request(WorkContext& ctx, Message* m) {
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const auto bytes = page_bytes(ctx.node(), page);
  m->data.assign(bytes.begin(), bytes.end());
  std::swap(m->source, m->destination);
  m->purpose = kPageReply;
  m->payload_bytes = static_cast<std::uint32_t>(page_size_ + 8);
  send_from_handler(ctx, m);
  // The home's PP is told who now has a copy (off the requester's path).
  cluster_.notify_pp(
      ctx, [](WorkContext&) {}, emu::HandlerTag{true, static_cast<std::uint8_t>(Operation::PageFault)});
}

void Runtime::receive_page(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  auto bytes = page_bytes(ns.id, page);
  std::memcpy(bytes.data(), m->data.data(), page_size_);
  ns.pages[raw(page)].held = true;
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

void Runtime::fetch_diffs(NodeState& ns, PageId page) {
  PageState& ps = ns.pages[raw(page)];
  // One request per writer, in node order (deterministic), listing that writer's intervals.
  auto& notices = ps.notices;
  std::sort(notices.begin(), notices.end());
  notices.erase(std::unique(notices.begin(), notices.end()), notices.end());
  ns.received.clear();
  ns.receive_buffer.clear();
  ns.fanout.clear();
  Message* first = nullptr;
  std::uint32_t writers = 0;
  for (std::size_t i = 0; i < notices.size();) {
    std::size_t j = i;
    while (j < notices.size() && notices[j].first == notices[i].first) ++j;
    Message* m = new_message(ns.id, notices[i].first, kDiffRequest, 8 + 4 * (j - i));
    m->words[0] = raw(page);
    m->data.resize((j - i) * 4);
    for (std::size_t k = i; k < j; ++k) std::memcpy(m->data.data() + (k - i) * 4, &notices[k].second, 4);
    ns.fanout.push_back(m);
    if (!first) first = m;
    ++ns.stats.diff_requests;
    ++writers;
    i = j;
  }
  ns.outstanding = static_cast<int>(writers);
  ns.wait_requests = writers;
  send_request(ns, first, LocalCommand::DiffRequest);
  wait_until_done(ns, Operation::DiffFetch, raw(page));
}

void Runtime::serve_diff_request(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const std::size_t count = m->data.size() / 4;
  std::vector<std::byte>& reply = ns.reply_buffer;
  reply.clear();
  for (std::size_t k = 0; k < count; ++k) {
    std::uint32_t interval;  // read in place: the request's buffer is only replaced below
    std::memcpy(&interval, m->data.data() + k * 4, 4);
    const Diff& d = make_diff(ns, page, interval, &ctx);
    const std::uint32_t header[2] = {interval, static_cast<std::uint32_t>(d.encoded_bytes())};
    const auto* h = reinterpret_cast<const std::byte*>(header);
    reply.insert(reply.end(), h, h + sizeof(header));
    reply.insert(reply.end(), d.encoded().begin(), d.encoded().end());
  }
  m->data.swap(reply);  // the message's old buffer becomes the next reply buffer
  std::swap(m->source, m->destination);
  m->purpose = kDiffReply;
  m->payload_bytes = static_cast<std::uint32_t>(8 + m->data.size());
  send_from_handler(ctx, m);
  // The writer's PP learns who asked.
  cluster_.notify_pp(
      ctx, [](WorkContext&) {}, emu::HandlerTag{true, static_cast<std::uint8_t>(Operation::DiffFetch)});
}

void Runtime::receive_diffs(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  const PageId page{static_cast<std::uint32_t>(m->words[0])};
  const NodeId writer = m->source;
  std::size_t at = 0;
  std::size_t words = 0;
  while (at + 8 <= m->data.size()) {
    std::uint32_t header[2];
    std::memcpy(header, m->data.data() + at, sizeof(header));
    at += 8;
    const std::size_t offset = ns.receive_buffer.size();
    ns.receive_buffer.insert(ns.receive_buffer.end(), m->data.begin() + static_cast<std::ptrdiff_t>(at),
                             m->data.begin() + static_cast<std::ptrdiff_t>(at + header[1]));
    words += Diff::count_words(std::span<const std::byte>(m->data.data() + at, header[1]),
                               config_.memory.word_size);
    at += header[1];
    ns.received.push_back({writer, header[0], offset, header[1]});
  }
  if (!cluster_.has_cp()) ctx.spend(config_.dsm.diff_apply_per_word * static_cast<std::int64_t>(words));
  if (--ns.outstanding > 0) {
    cluster_.release(m);
    return;
  }
  // Every reply is in: apply in happens-before order (concurrent diffs touch disjoint words).
  std::sort(ns.received.begin(), ns.received.end(), [this](const ReceivedDiff& a, const ReceivedDiff& b) {
    const auto ka = intervals_[static_cast<std::size_t>(emu::index(a.writer))][a.interval - 1].order_key;
    const auto kb = intervals_[static_cast<std::size_t>(emu::index(b.writer))][b.interval - 1].order_key;
    if (ka != kb) return ka < kb;
    if (a.writer != b.writer) return a.writer < b.writer;
    return a.interval < b.interval;
  });
  auto bytes = page_bytes(ns.id, page);
  for (const auto& r : ns.received)
    Diff::apply_encoded(std::span<const std::byte>(ns.receive_buffer.data() + r.offset, r.bytes), bytes,
                        config_.memory.word_size);
  ns.stats.diffs_applied += ns.received.size();
  PageState& ps = ns.pages[raw(page)];
  ns.notice_count -= std::min(ns.notice_count, ps.notices.size());
  ps.notices.clear();
  ns.received.clear();
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

void Runtime::begin_write(NodeState& ns, PageId page) {
  PageState& ps = ns.pages[raw(page)];
  const auto me = static_cast<std::size_t>(emu::index(ns.id));
  const std::uint32_t current = ns.vt[me] + 1;
  const bool software = !cluster_.has_cp();
  if (software) ns.pp->compute(config_.dsm.fault_trap);  // write-protection fault
  if (!ps.twin.empty() && ps.twin_interval != current) make_diff(ns, page, ps.twin_interval, nullptr);
  if (ps.twin.empty()) {
    const auto bytes = page_bytes(ns.id, page);
    if (!ns.spare_twins.empty()) {
      ps.twin = std::move(ns.spare_twins.back());
      ns.spare_twins.pop_back();
    }
    ps.twin.assign(bytes.begin(), bytes.end());
    ps.twin_interval = current;
    ++ns.stats.twins;
    if (software) {
      const emu::TimePoint now = kernel_.now();
      const emu::TimePoint copied =
          ns.pp->bus().transfer(now, static_cast<std::int64_t>(page_size_), config_.pp.copy_bandwidth);
      ns.pp->compute(copied - now);
    }
  }
  ns.dirty.push_back(page);
  const std::uint32_t r = page_region_[raw(page)];
  ns.regions[r].access[raw(page) - regions_[r].first_page] = static_cast<std::uint8_t>(Access::Write);
}

// ------------------------------------------------------------------------------------------------
// Locks: manager = id mod n, forwarding to the last requester; the releaser grants with the
// write notices the acquirer has not seen.

void Runtime::lock_acquire(NodeId n, LockId lock) {
  const MeasuredEntry measured(*this, n);
  NodeState& ns = self(n);
  if (raw(lock) >= kMaxLocks)
    throw DsmError(
        fmt::format("node {}: lock id {} is out of range (0..{})", emu::index(n), raw(lock), kMaxLocks - 1));
  auto [it, fresh] = ns.locks.try_emplace(raw(lock));
  auto& ls = it->second;
  if (fresh) ls.token = lock_manager(lock) == n;
  if (ls.held)
    throw DsmError(fmt::format("node {} acquires lock {} which it already holds", emu::index(n), raw(lock)));
  OperationScope op(*ns.pp, Operation::LockAcquire);
  ns.pp->compute(config_.dsm.protocol_handler);
  ++ns.stats.lock_acquires;
  if (ls.token) {  // the last holder re-acquires: no message
    ls.held = true;
    ++ns.stats.local_lock_acquires;
    return;
  }
  close_interval(ns);
  ls.requested = true;
  const NodeId manager = lock_manager(lock);
  Message* m = new_message(n, manager, kLockRequest, 8 + 4 * ns.vt.size());
  m->words[0] = raw(lock);
  m->words[1] = static_cast<std::uint64_t>(emu::index(n));
  encode_vt(m->data, ns.vt);
  if (manager == n) {
    // The manager requests: it forwards to the last requester itself (one message saved).
    auto [tail, added] = lock_tail_.try_emplace(raw(lock), manager);
    const NodeId previous = tail->second;
    if (previous == n)
      throw std::logic_error(
          fmt::format("lock {}: manager {} is its own predecessor", raw(lock), emu::index(n)));
    tail->second = n;
    m->destination = previous;
    m->purpose = kLockForward;
  }
  send_request(ns, m, LocalCommand::SendMessage);
  wait_until_done(ns, Operation::LockAcquire, raw(lock));
}

void Runtime::on_lock_request(WorkContext& ctx, Message* m) {
  const LockId lock{static_cast<std::uint32_t>(m->words[0])};
  const NodeId requester = emu::node_id(static_cast<int>(m->words[1]));
  NodeState& here = self(ctx.node());
  if (m->purpose == kLockRequest) {
    // At the manager: the request joins the distributed queue behind the last requester.
    auto [tail, added] = lock_tail_.try_emplace(raw(lock), here.id);
    const NodeId previous = tail->second;
    tail->second = requester;
    if (previous != here.id) {
      m->source = here.id;
      m->destination = previous;
      m->purpose = kLockForward;
      send_from_handler(ctx, m);
      return;
    }
  }
  // At the node that holds the lock, or will: grant now if it is free, else when released.
  auto [it, fresh] = here.locks.try_emplace(raw(lock));
  auto& ls = it->second;
  if (fresh) ls.token = lock_manager(lock) == here.id;
  if (!ls.held && ls.token) {
    ls.token = false;
    grant_lock(&ctx, here, lock, requester, m);
    return;
  }
  if (ls.has_next)
    throw std::logic_error(
        fmt::format("lock {}: node {} already has a successor", raw(lock), emu::index(here.id)));
  ls.has_next = true;
  ls.next = requester;
  ls.next_request = m;
  // From here the requester waits for this node to release: synchronization delay, caused here.
  // Stamped when the command (or handler) starts, so that a release in the middle of it still
  // comes after this stamp.
  m->chain.add(kernel_.now(), StampPoint::SyncDelayBegin, ctx.resource(), here.id,
               here.pp->attribution().scope);
}

// `holder` passes lock `lock` to `to`, answering `request` with the intervals `to` has not seen.
void Runtime::grant_lock(WorkContext* ctx, NodeState& holder, LockId lock, NodeId to, Message* request) {
  const VectorTime requester_vt = decode_vt(request->data, holder.vt.size());
  request->source = holder.id;
  request->destination = to;
  request->purpose = kLockGrant;
  request->payload_bytes =
      static_cast<std::uint32_t>(8 + 4 * holder.vt.size() + intervals_bytes(requester_vt, holder.vt));
  encode_vt(request->data, holder.vt);
  (void)lock;
  if (ctx)
    send_from_handler(*ctx, request);
  else
    send_from_fiber(holder, request);
}

void Runtime::receive_grant(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  const LockId lock{static_cast<std::uint32_t>(m->words[0])};
  apply_intervals(ns, decode_vt(m->data, ns.vt.size()), &ctx);
  auto& ls = ns.locks[raw(lock)];
  ls.held = true;
  ls.token = true;
  ls.requested = false;
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

void Runtime::lock_release(NodeId n, LockId lock) {
  const MeasuredEntry measured(*this, n);
  NodeState& ns = self(n);
  auto it = ns.locks.find(raw(lock));
  if (raw(lock) >= kMaxLocks || it == ns.locks.end() || !it->second.held)
    throw DsmError(fmt::format("node {} releases lock {} which it does not hold", emu::index(n), raw(lock)));
  auto& ls = it->second;
  OperationScope op(*ns.pp, Operation::LockRelease);
  ns.pp->compute(config_.dsm.protocol_handler);
  close_interval(ns);
  ls.held = false;
  if (ls.has_next) {
    ls.has_next = false;
    ls.token = false;
    Message* request = ls.next_request;
    ls.next_request = nullptr;
    request->chain.add(kernel_.now(), StampPoint::SyncDelayEnd, Resource::PP, ns.id,
                       ns.pp->attribution().scope);
    grant_lock(nullptr, ns, lock, ls.next, request);
  }
}

// ------------------------------------------------------------------------------------------------
// Barriers: every node sends its arrival (with its new intervals) to the manager, which answers
// each with the intervals it has not seen. 2(n-1) messages.

void Runtime::barrier(NodeId n, BarrierId barrier) {
  const MeasuredEntry measured(*this, n);
  if (raw(barrier) >= kMaxBarriers)
    throw DsmError(fmt::format("node {}: barrier id {} is out of range (0..{})", emu::index(n), raw(barrier),
                               kMaxBarriers - 1));
  barrier_episode(self(n), barrier, true);
}

void Runtime::barrier_episode(NodeState& ns, BarrierId barrier, bool allow_gc) {
  OperationScope op(*ns.pp, Operation::Barrier);
  ns.pp->compute(config_.dsm.protocol_handler);
  close_interval(ns);
  const NodeId manager = emu::node_id(config_.dsm.barrier_manager);
  const std::size_t usage = usage_bytes(ns);
  const VectorTime& last_seen = barrier_.arrival_vt[static_cast<std::size_t>(emu::index(ns.id))];
  if (ns.id == manager) {
    ns.wait_start = kernel_.now();
    ns.pp->set_in_wait(true);
    ns.chain.clear();
    ns.chain.add(ns.wait_start, StampPoint::WaitBegin, Resource::PP, ns.id);
    record_arrival(nullptr, ns.id, barrier, ns.vt, usage, nullptr);
  } else {
    Message* m = new_message(ns.id, manager, kBarrierArrival,
                             16 + 4 * ns.vt.size() + intervals_bytes(last_seen, ns.vt));
    m->words[0] = raw(barrier);
    m->words[1] = usage;
    encode_vt(m->data, ns.vt);
    send_request(ns, m, LocalCommand::SendMessage);
  }
  wait_until_done(ns, Operation::Barrier, raw(barrier));
  ++ns.stats.barriers;
  if (ns.release_gc && allow_gc) {
    ns.release_gc = false;
    run_gc(ns);
  }
}

void Runtime::on_barrier_arrival(WorkContext& ctx, Message* m) {
  // The manager's CP (ncp2) hands the arrival to the barrier handler on its PP, by interrupt.
  if (ctx.resource() == Resource::CP) {
    m->chain.add(ctx.now(), StampPoint::CpFinished, Resource::CP, ctx.node());
    m->chain.add(ctx.now(), StampPoint::PpInterrupted, Resource::PP, ctx.node());
  }
  cluster_.notify_pp(
      ctx,
      [this, m](WorkContext& h) {
        m->chain.add(h.start(), StampPoint::PpHandlerStart, Resource::PP, h.node());
        h.spend(config_.dsm.protocol_handler);
        const VectorTime vt = decode_vt(m->data, nodes_.size());
        record_arrival(&h, m->source, BarrierId{static_cast<std::uint32_t>(m->words[0])}, vt,
                       static_cast<std::size_t>(m->words[1]), m);
      },
      emu::HandlerTag{true, static_cast<std::uint8_t>(Operation::Barrier)});
}

void Runtime::record_arrival(WorkContext* ctx, NodeId from, BarrierId barrier, const VectorTime& vt,
                             std::size_t usage, Message* m) {
  auto& b = barrier_;
  if (b.arrived == 0) {
    b.id = barrier;
  } else if (b.id != barrier) {
    throw DsmError(fmt::format("barrier mismatch: node {} arrived at {} while {} node(s) wait at {}",
                               emu::index(from), barrier_name(raw(barrier)), b.arrived,
                               barrier_name(raw(b.id))));
  }
  ++b.arrived;
  merge_into(b.merged, vt);
  b.arrival_vt[static_cast<std::size_t>(emu::index(from))] = vt;
  b.waiting[static_cast<std::size_t>(emu::index(from))] = m;
  if (usage > static_cast<std::size_t>(config_.dsm.gc_threshold_kb) * 1024 && raw(barrier) < kMaxBarriers)
    b.gc = true;
  b.last = from;
  if (m) m->chain.add(ctx->now(), StampPoint::PpHandlerEnd, Resource::PP, ctx->node());
  if (b.arrived == nodes()) release_barrier(ctx);
}

void Runtime::release_barrier(WorkContext* ctx) {
  auto& b = barrier_;
  ++b.episodes;
  const NodeId manager = emu::node_id(config_.dsm.barrier_manager);
  NodeState& mgr = self(manager);
  const emu::TimePoint release_start = ctx ? ctx->now() : kernel_.now();
  // Take this episode's state and reset the manager for the next one before anything here can
  // suspend: sending from the manager's fiber computes, and early arrivals for the next episode
  // may be handled meanwhile.
  std::vector<Message*> waiting(b.waiting.size(), nullptr);
  waiting.swap(b.waiting);
  const std::vector<VectorTime> seen = b.arrival_vt;
  const VectorTime merged = b.merged;
  const bool gc = b.gc;
  const NodeId last = b.last;
  for (auto& vt : b.arrival_vt) vt = merged;
  b.arrived = 0;
  b.gc = false;

  const std::uint32_t last_scope = self(last).pp->attribution().scope;  // where the straggler was
  if (last != manager) {
    mgr.chain.add(mgr.wait_start, StampPoint::SyncDelayBegin, Resource::PP, last, last_scope);
    mgr.chain.add(release_start, StampPoint::SyncDelayEnd, Resource::PP, last, last_scope);
  }
  apply_intervals(mgr, merged, ctx);
  for (int j = 0; j < nodes(); ++j) {
    Message* m = waiting[static_cast<std::size_t>(j)];
    if (emu::node_id(j) == manager) continue;
    if (emu::node_id(j) != last) {
      // It waited for the last arrival: synchronization delay caused by that node.
      m->chain.add(m->chain.back().time, StampPoint::SyncDelayBegin, Resource::PP, last, last_scope);
      m->chain.add(release_start, StampPoint::SyncDelayEnd, Resource::PP, last, last_scope);
    }
    std::swap(m->source, m->destination);
    m->purpose = kBarrierRelease;
    m->payload_bytes = static_cast<std::uint32_t>(16 + 4 * merged.size() +
                                                  intervals_bytes(seen[static_cast<std::size_t>(j)], merged));
    m->words[1] = gc ? 1 : 0;
    encode_vt(m->data, merged);
    if (ctx)
      send_from_handler(*ctx, m);
    else
      send_from_fiber(mgr, m);
  }
  // The manager itself continues when this handler ends (or at once if it arrived last).
  mgr.release_gc = gc;
  mgr.done = true;
  if (ctx) mgr.pp->wake();
}

void Runtime::receive_release(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  apply_intervals(ns, decode_vt(m->data, ns.vt.size()), &ctx);
  ns.release_gc = m->words[1] != 0;
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

// Garbage collection (TreadMarks): before diffs, twins and write notices are discarded, every
// copy of a page must be current or dropped. Each page written since the last collection gets a
// new home, its last writer (the latest interval by happens-before, ties by node): that node
// brings its copy up to date (fetching the diffs of concurrent writers). Every other node keeps a
// copy that is already current and drops a stale one; it will ask the new home for the page if it
// needs it again. (Making node 0 current for every page instead sends every diff of the program
// to it at each collection.) Then everyone meets at a second barrier and discards.
void Runtime::run_gc(NodeState& ns) {
  OperationScope op(*ns.pp, Operation::GarbageCollection);
  ++ns.stats.gc_runs;
  if (gc_generation_ < ns.stats.gc_runs) {
    // The first node to collect computes the homes for all: they depend only on the intervals up
    // to the release's vector time, which every node has now seen.
    assign_page_homes(ns.vt);
    gc_generation_ = ns.stats.gc_runs;
  }
  for (std::uint32_t p = 0; p < ns.pages.size(); ++p) {
    PageState& ps = ns.pages[p];
    if (!ps.held || ps.notices.empty()) continue;
    const std::uint32_t r = page_region_[p];
    auto& access = ns.regions[r].access[p - regions_[r].first_page];
    if (page_home_[p] == ns.id) {
      fetch_diffs(ns, PageId{p});
      if (access == static_cast<std::uint8_t>(Access::None)) access = static_cast<std::uint8_t>(Access::Read);
    } else {
      ns.pages[p].held = false;
      access = static_cast<std::uint8_t>(Access::None);
    }
  }
  barrier_episode(ns, BarrierId{kGcBarrier}, false);
  // Twins and diff encodings go back to the node's pools (bounded): the next intervals reuse them
  // instead of allocating afresh (malloc was a tenth of an 8-node SOR run's host time).
  constexpr std::size_t kMaxSpareBuffers = 1024;
  for (auto& ps : ns.pages) {
    ps.notices.clear();
    if (!ps.twin.empty() && ns.spare_twins.size() < kMaxSpareBuffers)
      ns.spare_twins.push_back(std::move(ps.twin));
    ps.twin = {};
    ps.twin_interval = 0;
    for (auto& own : ps.diffs)
      if (ns.spare_diff_buffers.size() < kMaxSpareBuffers)
        ns.spare_diff_buffers.push_back(std::move(own.diff).take_storage());
    ps.diffs.clear();
  }
  ns.diff_bytes = 0;
  ns.notice_count = 0;
}

void Runtime::assign_page_homes(const VectorTime& upto) {
  if (page_home_.size() < page_region_.size()) {
    for (std::size_t p = page_home_.size(); p < page_region_.size(); ++p)
      page_home_.push_back(regions_[page_region_[p]].home);
  }
  gc_from_.resize(intervals_.size(), 0);
  // The latest writing interval of each page: (order key, writer) is a total order consistent
  // with happens-before.
  std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::uint32_t>> latest;
  for (std::size_t q = 0; q < intervals_.size(); ++q) {
    for (std::uint32_t i = gc_from_[q]; i < upto[q]; ++i) {
      const IntervalRecord& rec = intervals_[q][i];
      for (PageId page : rec.pages) {
        const std::pair<std::uint64_t, std::uint32_t> key{rec.order_key, static_cast<std::uint32_t>(q)};
        auto [it, inserted] = latest.try_emplace(raw(page), key);
        if (!inserted && it->second < key) it->second = key;
      }
    }
    gc_from_[q] = upto[q];
  }
  for (const auto& [page, key] : latest) page_home_[page] = emu::node_id(static_cast<int>(key.second));
}

}  // namespace ncp2::dsm
