// The emulated transport's core: construction, allocation, messages, and the bookkeeping of a
// PP's wait (from t0 to its resumption, handed to the wait observers). The protocol's operations
// live in page_faults.cpp, locks.cpp and barriers.cpp (under the core's lrc::Driver), their modelled costs in
// costs.cpp.
#include "dsm/runtime.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <system_error>
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::Resource;
using emu::StampPoint;
using emu::WorkContext;

namespace {
lrc::ProtocolConfig protocol_for(const SystemConfig& config, int nodes) {
  lrc::ProtocolConfig p = protocol_config(config);
  p.nodes = nodes;
  return p;
}
}  // namespace

Runtime::NodeState::NodeState(Runtime& rt, NodeId node)
    : id(node),
      pp(&rt.cluster_.pp(node)),
      memory(rt.directory_, rt.page_size_),
      lrc(node, rt.protocol_, rt.history_, rt.directory_, memory),
      transport(rt, *this),
      driver(lrc, transport),
      runtime(&rt) {}

Runtime::Runtime(emu::Kernel& kernel, emu::Cluster& cluster, const SystemConfig& config)
    : kernel_(kernel),
      cluster_(cluster),
      config_(config),
      protocol_(protocol_for(config, cluster.size())),
      page_size_(static_cast<std::size_t>(config.memory.page_size)),
      history_(static_cast<std::size_t>(cluster.size())),
      checks_(cluster.size(), page_size_, regions_),
      barrier_(protocol_),
      barrier_waiting_(static_cast<std::size_t>(cluster.size()), nullptr) {
  while ((std::size_t{1} << page_shift_) < page_size_) ++page_shift_;
  const int n = cluster.size();
  for (int i = 0; i < n; ++i) nodes_.push_back(std::make_unique<NodeState>(*this, emu::node_id(i)));

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
  // The test suite checks spans in every run without asking each one (dsm/span_checker.hpp).
  if (const char* check = std::getenv("NCP2_CHECK_SPANS");
      check != nullptr && *check != 0 && std::string_view(check) != "0")
    check_spans();
}

// The nodes' fibers still blocked (a deadlock, a stop, a time limit) unwind now, while this
// runtime and the cluster their destructors touch are alive: the kernel, which would otherwise
// do it in its own destructor, outlives both (found by ASan: a use after free).
Runtime::~Runtime() { kernel_.cancel_unfinished_fibers(); }

NodeStats Runtime::stats(NodeId n) const {
  const NodeState& ns = *nodes_.at(static_cast<std::size_t>(emu::index(n)));
  NodeStats s;
  static_cast<lrc::Counters&>(s) = ns.lrc.counters();
  s.messages = ns.messages;
  s.bytes = ns.bytes;
  s.messages_by_purpose = ns.messages_by_purpose;
  return s;
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

void Runtime::show_page_as(NodeId n, std::uint32_t region, std::uint32_t local_page, std::byte* bytes) {
  self(n).memory.shown_as[raw(page_of(region, local_page))] = bytes;
}

std::byte* Runtime::region_data(NodeId n, std::uint32_t region) {
  return self(n).memory.regions.at(region).data;
}
const std::uint8_t* Runtime::region_access(NodeId n, std::uint32_t region) {
  if (region >= regions_.size()) throw std::out_of_range("no such shared region");
  return self(n).lrc.region_access(region);
}

std::uint32_t Runtime::allocate(NodeId n, std::string_view name, std::size_t count,
                                std::size_t element_size) {
  NodeState& ns = self(n);
  checks_.at_entry(n);
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
  const auto pages = static_cast<std::uint32_t>((count * element_size + page_size_ - 1) / page_size_);
  const std::uint32_t region = directory_.add_region(pages, lrc::kAllocatingHome);
  static_cast<lrc::Region&>(r) = directory_.regions().back();  // its pages, first page and home
  const std::size_t bytes = static_cast<std::size_t>(r.pages) * page_size_;
  if (checks_.checking_spans() && !region_memory_) checks_.add_checked_region(k, bytes);
  for (auto& node : nodes_) {
    NodeMemory::RegionBytes memory;
    if (region_memory_) {
      memory.data = region_memory_(node->id, bytes);
    } else if (checks_.checking_spans()) {
      memory.data = checks_.checked_copy(k, node->id);
    } else {
      memory.owned = zeroed(bytes);
      memory.data = memory.owned.get();
    }
    node->memory.regions.push_back(std::move(memory));
    node->memory.shown_as.resize(directory_.pages(), nullptr);
    node->lazy.resize(directory_.pages());
    node->lrc.add_region(region);
  }
  regions_.push_back(std::move(r));
  return k;
}

void Runtime::out_of_range(NodeId n, std::uint32_t region, std::size_t index, std::size_t count) const {
  throw DsmError(fmt::format("node {}: index {} is out of range for shared array '{}' of {} elements",
                             emu::index(n), index, regions_.at(region).name, count));
}

std::uint32_t Runtime::scope_of(NodeId n) const {
  return nodes_[static_cast<std::size_t>(emu::index(n))]->pp->attribution().scope;
}

void Runtime::record_access(NodeId n, std::uint32_t region, std::size_t offset, std::size_t bytes, bool write,
                            AccessSite site) {
  if (!checks_.races() || bytes == 0 || self(n).exited) return;  // after Tmk_exit: the verification
  site.scope = scope_of(n);
  checks_.record_access(n, PageId{regions_.at(region).first_page}, offset, bytes, write, site);
}

std::byte* Runtime::take_span(NodeId n, std::uint32_t region, std::size_t offset, std::size_t bytes,
                              const char* file, int line) {
  std::byte* at = checks_.take_span(n, region, offset, bytes, file, line);
  return at != nullptr ? at : region_data(n, region);
}

void Runtime::track_access_changes(NodeId n) { self(n).lrc.track_access_changes(); }

void Runtime::take_access_changes(NodeId n, std::vector<PageId>& out) {
  self(n).lrc.take_access_changes(out);
}

void Runtime::compute(NodeId n, emu::Duration d) {
  check_limits();
  if (meter_) [[unlikely]] {  // measured model: the annotation is ignored, the measured stretch charged
    const MeasuredEntry entry(*this, n);
    return;
  }
  checks_.at_entry(n);
  self(n).pp->compute(d);
}

void Runtime::compute_external(NodeId n, emu::Duration d) {
  check_limits();
  checks_.at_entry(n);
  self(n).pp->compute(d);
}

Message* Runtime::new_message(NodeId from, NodeId to, std::uint16_t purpose, std::size_t payload) {
  return cluster_.new_message(from, to, purpose, static_cast<std::uint32_t>(payload));
}

void Runtime::count_send(NodeId from, const Message* m) {
  NodeState& s = self(from);
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
                         emu::index(rt.directory_.home(page)));
    }
    case Operation::DiffFetch: {
      const PageId page{static_cast<std::uint32_t>(ns.wait_object)};
      return fmt::format("diffs of page {} of '{}' from {} writer(s)", raw(page), rt.region_of(page).name,
                         ns.wait_requests);
    }
    case Operation::LockAcquire:
      return rt.describe_lock_wait(ns);
    case Operation::Barrier:
      return rt.describe_barrier_wait(ns);
    default:
      return std::string(to_string(ns.wait_op));
  }
}

std::string Runtime::where(std::uint64_t site) const {
  if (!describe_site_ || site == 0) return {};
  const std::string text = describe_site_(site);
  return text.empty() ? text : " at " + text;
}

// "lock 2 at dl.c:4, held by node 1 which acquired it at dl.c:5"
std::string Runtime::describe_lock_wait(const NodeState& ns) const {
  std::string text = fmt::format("lock {}{}", ns.wait_object, where(ns.wait_site));
  const LockId lock{static_cast<std::uint32_t>(ns.wait_object)};
  for (const auto& other : nodes_) {
    if (other.get() == &ns || !other->lrc.lock_held(lock)) continue;
    const std::string place = where(other->lrc.lock_site(lock));
    text += fmt::format(", held by node {}", emu::index(other->id));
    if (!place.empty()) text.append(" which acquired it").append(place);
    return text;
  }
  return text + ", held by no node (its grant is on its way, or the holder ended without releasing it)";
}

// "barrier 1 at dl.c:6; not arrived: node 0 (waits for lock 2 at dl.c:4), node 1 (...)"
std::string Runtime::describe_barrier_wait(const NodeState& ns) const {
  const auto id = static_cast<std::uint32_t>(ns.wait_object);
  std::string missing;
  for (const auto& other : nodes_) {
    if (other->wait_op == Operation::Barrier && other->wait_object == ns.wait_object) continue;
    missing += missing.empty() ? "" : ", ";
    if (other->exited)
      missing += fmt::format("node {} (has ended)", emu::index(other->id));
    else if (other->wait_op == Operation::None)
      missing += fmt::format("node {} (running)", emu::index(other->id));
    else if (other->wait_op == Operation::LockAcquire)
      missing += fmt::format("node {} (waits for lock {}{})", emu::index(other->id), other->wait_object,
                             where(other->wait_site));
    else
      missing += fmt::format("node {} (waits at {}{})", emu::index(other->id),
                             other->wait_op == Operation::Barrier
                                 ? barrier_name(static_cast<std::uint32_t>(other->wait_object))
                                 : std::string(to_string(other->wait_op)),
                             where(other->wait_site));
  }
  return fmt::format("{}{}{}", barrier_name(id), where(ns.wait_site),
                     missing.empty() ? std::string() : "; not arrived: " + missing);
}

void Runtime::wait_until_done(NodeState& ns, Operation op, std::uint64_t object) {
  ns.wait_op = op;
  ns.wait_object = object;
  ns.wait_site = current_site(ns.id);
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
  if (wait_sink_)
    wait_sink_->on_wait(WaitView{ns.id, ns.wait_op, ns.wait_object, ns.wait_requests, ns.wait_start,
                                 kernel_.now(), ns.chain});
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

}  // namespace ncp2::dsm
