#include "carnival/profiler.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "carnival/run_scopes.hpp"
#include "carnival/scope.hpp"
#include "dsm/wait_chain.hpp"

namespace ncp2::carnival {

namespace {

// The category of what the PP's program was doing: waiting, in the protocol, or computing.
Category interrupted_category(const emu::Attribution& a) {
  return a.in_wait ? Category::Wait : (a.operation != 0 ? Category::Extra : Category::Comp);
}

std::uint64_t cell_key(int node, std::uint32_t scope, Category category, std::uint8_t operation) {
  return (static_cast<std::uint64_t>(node) << 48) | (static_cast<std::uint64_t>(scope & 0xFFFFFF) << 24) |
         (static_cast<std::uint64_t>(category) << 8) | operation;
}

// Every operation's name, made once: copying a short string costs less than building it.
using OperationNames = std::array<std::string, 256>;
const OperationNames& operation_names() {
  static const OperationNames names = [] {
    OperationNames out;
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = std::string(dsm::to_string(static_cast<dsm::Operation>(i)));
    return out;
  }();
  return names;
}

const std::string& operation_name(std::uint8_t op) { return operation_names()[op]; }

}  // namespace

Profiler::Profiler(dsm::Runtime& runtime, emu::Cluster& cluster, ProfilerOptions options)
    : runtime_(runtime),
      cluster_(cluster),
      options_(options),
      has_cp_(cluster.has_cp()),
      service_as_interrupted_(cluster.config().pp.separate_server != 0) {
  nodes_.resize(static_cast<std::size_t>(cluster.size()));
  int node = 0;
  for (NodeTrack& track : nodes_)  // each CP's time by scope, into its node's cells
    track.cp_scopes = CpByScope([this, n = node++](std::uint32_t scope, Category category, std::int64_t ps) {
      add(n, scope, category, 0, ps);
    });
  pending_pp_.resize(nodes_.size());
  pending_cp_.resize(nodes_.size());
  exited_.assign(nodes_.size(), false);
  batch_ = fresh_batch();
  // A worker on a one-core host would only compete with the emulation for the core.
  background_ = options.background && std::thread::hardware_concurrency() > 1;
  if (background_) worker_ = std::thread([this] { work(); });
  cluster.attach_probe(this);
  runtime.attribute_lines(&line_scope);  // the typed API's calls put their time on their lines
  runtime.set_wait_sink(this);
  exit_observer_id_ = runtime.add_exit_observer([this](emu::NodeId n, emu::TimePoint t) {
    record(Event{emu::to_ps(t),
                 0,
                 {},
                 {},
                 static_cast<std::uint16_t>(emu::index(n)),
                 emu::PpActivity::Compute,
                 EventKind::Exit});
  });
}

Profiler::~Profiler() {
  cluster_.attach_probe(nullptr);
  runtime_.attribute_lines(nullptr);
  runtime_.set_wait_sink(nullptr);
  runtime_.remove_exit_observer(exit_observer_id_);
  if (worker_.joinable()) {
    {
      const std::lock_guard lock(mutex_);
      quit_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }
}

// ---------------------------------------------------------------------------------------------
// The emulation thread's side

std::unique_ptr<Profiler::Batch> Profiler::fresh_batch() {
  std::unique_ptr<Batch> b;
  {
    std::unique_lock lock(mutex_, std::defer_lock);  // spare_ is shared only with a worker
    if (background_) lock.lock();
    if (!spare_.empty()) {
      b = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!b) b = std::make_unique_for_overwrite<Batch>();  // events are written before read
  b->size = 0;
  b->waits.clear();
  b->stamp_count = 0;
  return b;
}

void Profiler::hand_over() {
  if (batch_->size == 0) return;
  if (!background_) {
    if (!error_) {
      try {
        account(*batch_);
      } catch (...) {
        error_ = std::current_exception();
      }
    }
    spare_.push_back(std::move(batch_));
    batch_ = fresh_batch();
    return;
  }
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < kMaxQueuedBatches; });
    queue_.push_back(std::move(batch_));
  }
  changed_.notify_all();
  batch_ = fresh_batch();
}

void Profiler::drain() {
  hand_over();
  if (background_) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return queue_.empty() && !busy_; });
  }
  if (error_) std::rethrow_exception(error_);
}

void Profiler::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return quit_ || !queue_.empty(); });
    if (queue_.empty()) return;  // quit, nothing left
    std::unique_ptr<Batch> b = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool failed = error_ != nullptr;
    lock.unlock();
    changed_.notify_all();  // room in the queue
    std::exception_ptr error;
    if (!failed) {
      try {
        account(*b);
      } catch (...) {
        error = std::current_exception();
      }
    }
    lock.lock();
    if (error) error_ = error;
    spare_.push_back(std::move(b));
    busy_ = false;
    changed_.notify_all();  // drained?
  }
}

void Profiler::pp_span(emu::NodeId node, emu::TimePoint from, emu::TimePoint to, emu::PpActivity activity,
                       const emu::Attribution& attribution, emu::HandlerTag tag) {
  record(Event{emu::to_ps(from), emu::to_ps(to), attribution, tag,
               static_cast<std::uint16_t>(emu::index(node)), activity, EventKind::PpSpan});
}

void Profiler::on_wait(const dsm::WaitView& w) {
  const auto stamps = w.chain.stamps();
  if (batch_->stamp_count + stamps.size() > batch_->stamps.size()) hand_over();
  Batch& b = *batch_;
  // First the wait and its stamps: record() may hand the batch over.
  b.waits.push_back(RecordedWait{w.start, w.end, w.object, static_cast<std::uint32_t>(b.stamp_count),
                                 static_cast<std::uint32_t>(stamps.size()), w.node, w.operation});
  static_assert(std::is_trivially_copyable_v<emu::Stamp>);  // std::copy_n: one memmove
  std::copy_n(stamps.begin(), stamps.size(), b.stamps.begin() + static_cast<std::ptrdiff_t>(b.stamp_count));
  b.stamp_count += stamps.size();
  record(Event{static_cast<std::int64_t>(b.waits.size() - 1),
               0,
               emu::Attribution{cluster_.pp(w.node).attribution().scope, 0, false},
               {},
               static_cast<std::uint16_t>(emu::index(w.node)),
               emu::PpActivity::Compute,
               EventKind::Wait});
}

void Profiler::cp_span(emu::NodeId node, emu::TimePoint from, emu::TimePoint to) {
  record(Event{emu::to_ps(from),
               emu::to_ps(to),
               cluster_.pp(node).attribution(),
               {},
               static_cast<std::uint16_t>(emu::index(node)),
               emu::PpActivity::Compute,
               EventKind::CpSpan});
}

void Profiler::stop(emu::TimePoint end) {
  record(Event{emu::to_ps(end), 0, {}, {}, 0, emu::PpActivity::Compute, EventKind::Stop});
}

bool Profiler::stopped() {
  drain();
  return stopped_;
}

// ---------------------------------------------------------------------------------------------
// The worker's side

void Profiler::account(const Batch& batch) {
  for (const Event& e : std::span(batch.events).first(batch.size)) {
    const auto n = static_cast<std::size_t>(e.node);
    switch (e.kind) {
      case EventKind::PpSpan:
        on_pp_span(n, e);
        break;
      case EventKind::CpSpan:
        on_cp_span(n, e);
        break;
      case EventKind::Wait: {
        const RecordedWait& w = batch.waits[static_cast<std::size_t>(e.from)];
        account_wait(w, std::span(batch.stamps).subspan(w.first_stamp, w.stamps), e.attribution.scope);
        break;
      }
      case EventKind::Exit:
        on_exit(n, e.from);
        break;
      case EventKind::Stop:
        on_stop(e.from);
        break;
    }
  }
}

void Profiler::add(int node, std::uint32_t scope, Category category, std::uint8_t operation,
                   std::int64_t ps) {
  if (ps <= 0) return;
  const std::uint64_t key = cell_key(node, scope, category, operation);
  auto& slot = cell_cache_[(key * 0x9E3779B97F4A7C15ULL) >> 55];
  if (slot.second == nullptr || slot.first != key) slot = {key, &cells_[key]};
  slot.second->time_ps += ps;
  ++slot.second->count;
}

void Profiler::add_segment(int node, bool cp, Category category, std::uint8_t operation, std::uint32_t scope,
                           std::int64_t from, std::int64_t to) {
  if (options_.max_timeline == 0 || to <= from) return;
  if (timeline_.size() >= options_.max_timeline) {
    ++timeline_dropped_;
    return;
  }
  timeline_.push_back(
      CompactSegment{from, to, scope, static_cast<std::uint16_t>(node), category, operation, cp});
}

void Profiler::on_exit(std::size_t node, std::int64_t when_ps) {
  exited_[node] = true;
  if (++exited_count_ == static_cast<int>(nodes_.size())) on_stop(when_ps);  // the end of the timed region
}

// Spans are buffered one deep per processor, so that the one running when the window closes can be
// clipped at its end.
void Profiler::on_pp_span(std::size_t n, const Event& e) {
  const std::int64_t f = e.from;
  const std::int64_t t = e.to;
  const emu::PpActivity activity = e.activity;
  const emu::Attribution& attribution = e.attribution;
  const emu::HandlerTag tag = e.tag;
  // A service handler inside a wait is taken out of that wait (noted at once, accounted later),
  // unless the server is a process of its own: the program's wait then holds it, as a real run's.
  if (activity == emu::PpActivity::Handler && tag.service && attribution.in_wait &&
      !service_as_interrupted_ && !(stopped_ && f >= end_ps_))
    nodes_[n].service_in_wait.emplace_back(f, stopped_ ? std::min(t, end_ps_) : t);
  PendingSpan& p = pending_pp_[n];
  if (p.valid) account_pp(n, p);
  p = PendingSpan{true, f, t, activity, attribution, tag, exited_[n]};
}

void Profiler::on_cp_span(std::size_t n, const Event& e) {
  PendingSpan& p = pending_cp_[n];
  if (p.valid) account_cp(n, p);
  p = PendingSpan{true, e.from, e.to, emu::PpActivity::Compute, e.attribution, {}, false};
}

void Profiler::account_cp(std::size_t n, const PendingSpan& s) {
  std::int64_t to = s.to;
  if (stopped_) {
    if (s.from >= end_ps_) return;
    to = std::min(to, end_ps_);
  }
  const int node = static_cast<int>(n);
  NodeTrack& track = nodes_[n];
  if (s.from > track.cp_last_end) {
    add_segment(node, true, Category::CPIdle, 0, 0, track.cp_last_end, s.from);
    track.cp_scopes.cp(track.cp_last_end, s.from, Category::CPIdle);
  }
  track.cp_last_end = std::max(track.cp_last_end, to);
  track.cp_busy_ps += to - s.from;
  track.cp_scopes.cp(s.from, to, Category::CPComp);
  add_segment(node, true, Category::CPComp, 0, s.attribution.scope, s.from, to);
}

// The CPs' time up to `end_ps` is all attributed (the idle stretch since each CP's last command
// included).
void Profiler::close_cp_scopes(std::int64_t end_ps) {
  if (!has_cp_) return;
  for (NodeTrack& track : nodes_) {
    if (end_ps > track.cp_last_end) {
      track.cp_scopes.cp(track.cp_last_end, end_ps, Category::CPIdle);
      track.cp_last_end = end_ps;
    }
    track.cp_scopes.finish();
  }
}

void Profiler::account_pp(std::size_t n, const PendingSpan& s) {
  std::int64_t to = s.to;
  if (stopped_) {
    if (s.from >= end_ps_) return;
    to = std::min(to, end_ps_);
  }
  if (to <= s.from) return;
  const int node = static_cast<int>(n);
  NodeTrack& track = nodes_[n];
  const emu::Attribution& a = s.attribution;
  // After its exit from the exit barrier a PP only services others: the gaps in between are Wait
  // in the "exit" operation, counted only if more activity follows.
  // (A handler for its own requests — a verification read after the exit — is not service.)
  const bool own_work = s.activity != emu::PpActivity::Handler || !s.tag.service;
  if (own_work && (s.exited || s.activity == emu::PpActivity::Finished)) {
    if (track.exit_from < 0) track.exit_from = s.from;
    track.exit_to = to;
    return;
  }
  flush_exit(n, a.scope);
  Category category;
  std::uint8_t operation;
  switch (s.activity) {
    case emu::PpActivity::Handler:
      if (s.tag.service && service_as_interrupted_ && !s.exited) {  // what the program was doing
        category = interrupted_category(a);
        operation = a.operation;
        break;
      }
      category = s.tag.service ? Category::Prste : Category::Wait;
      operation = s.tag.operation;
      break;
    case emu::PpActivity::Blocked:
      category = Category::Wait;
      operation = a.operation;
      break;
    default:
      category = interrupted_category(a);
      operation = a.operation;
      break;
  }
  add(node, a.scope, category, operation, to - s.from);
  add_segment(node, false, category, operation, a.scope, s.from, to);
  if (has_cp_) track.cp_scopes.pp(s.from, to, a.scope);
  track.finish_ps = std::max(track.finish_ps, to);
}

void Profiler::flush_exit(std::size_t n, std::uint32_t scope) {
  NodeTrack& track = nodes_[n];
  if (track.exit_from < 0) return;
  const std::int64_t from = track.exit_from;
  const std::int64_t to = track.exit_to;
  track.exit_from = track.exit_to = -1;
  const auto op = static_cast<std::uint8_t>(dsm::Operation::Exit);
  add(static_cast<int>(n), scope, Category::Wait, op, to - from);
  add_segment(static_cast<int>(n), false, Category::Wait, op, scope, from, to);
  if (has_cp_) track.cp_scopes.pp(from, to, scope);
  track.finish_ps = std::max(track.finish_ps, to);
  CompactWait row{};
  row.node = static_cast<std::uint16_t>(n);
  row.scope = scope;
  row.operation = op;
  row.start_ps = from;
  row.duration_ps = to - from;
  row.cause_node = -1;
  row.cause_scope = -1;
  row.remote_node = -1;
  row.parts[static_cast<std::size_t>(WaitPart::SyncDelay)] = to - from;  // waiting for the others to end
  add_wait(row);
}

void Profiler::on_stop(std::int64_t end_ps) {
  if (stopped_) return;
  stopped_ = true;
  end_ps_ = end_ps;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    if (pending_pp_[n].valid) account_pp(n, pending_pp_[n]);
    pending_pp_[n].valid = false;
    if (pending_cp_[n].valid) account_cp(n, pending_cp_[n]);
    pending_cp_[n].valid = false;
    if (has_cp_ && end_ps_ > nodes_[n].cp_last_end)
      add_segment(static_cast<int>(n), true, Category::CPIdle, 0, 0, nodes_[n].cp_last_end, end_ps_);
    // A pending exit gap stays pending: it counts only if a handler that began before the end
    // is still to be reported; otherwise it is trailing, not activity, and finish() ignores it.
  }
}

void Profiler::account_wait(const RecordedWait& w, std::span<const emu::Stamp> stamps, std::uint32_t scope) {
  const auto n = static_cast<std::size_t>(emu::index(w.node));
  auto& services = nodes_[n].service_in_wait;
  // Waits after the node left the exit barrier (its verification) are outside the timed region.
  if (exited_[n] || (stopped_ && emu::to_ps(w.start) >= end_ps_)) {
    services.clear();
    return;
  }
  segments_.clear();
  const dsm::WaitBreakdown b = dsm::fold_wait(stamps, w.node, has_cp_, &segments_);
  CompactWait row{};
  row.node = static_cast<std::uint16_t>(n);
  row.scope = scope;
  row.operation = static_cast<std::uint8_t>(w.operation);
  row.start_ps = emu::to_ps(w.start);
  row.object = w.object;
  row.remote_node = b.remote;
  row.cause_node = -1;
  row.cause_scope = -1;
  std::int64_t taken = 0;
  for (const auto& seg : segments_) {
    std::int64_t d = emu::to_ps(seg.to) - emu::to_ps(seg.from);
    for (const auto& [s, e] : services) {
      const std::int64_t overlap = std::min(e, emu::to_ps(seg.to)) - std::max(s, emu::to_ps(seg.from));
      if (overlap > 0) {
        d -= overlap;
        taken += overlap;
      }
    }
    row.parts[static_cast<std::size_t>(seg.category)] += d;
  }
  services.clear();
  row.duration_ps = emu::to_ps(w.end) - emu::to_ps(w.start) - taken;
  std::int64_t sum = 0;
  for (auto p : row.parts) sum += p;
  if (sum != row.duration_ps)
    throw std::logic_error(fmt::format("node {} {} wait at {} ps: parts sum to {} ps, duration {} ps", n,
                                       operation_name(row.operation), row.start_ps, sum, row.duration_ps));
  if (b.has_cause && row.parts[static_cast<std::size_t>(WaitPart::SyncDelay)] > 0) {
    row.cause_node = emu::index(b.cause);
    row.cause_scope = b.cause_scope;
  }
  add_wait(row);
}

void Profiler::add_wait(const CompactWait& row) {
  WaitSummary& s = summary_[cell_key(row.node, row.scope, Category::Wait, row.operation)];
  if (s.count == 0) {
    s.node = row.node;
    s.scope = row.scope;
    s.operation = operation_name(row.operation);
    s.kind = "Wait";
  }
  ++s.count;
  s.total_ps += row.duration_ps;
  for (std::size_t i = 0; i < kWaitParts; ++i) s.parts[i] += row.parts[i];
  if (waits_.size() >= options_.max_wait_rows) {
    ++waits_dropped_;
    return;
  }
  // Kept as the row finish() hands out (numbered from 1 in accounting order): made here, on the
  // accounting thread, rather than converted on the emulation thread at the end.
  WaitRow& w = waits_.emplace_back();
  w.id = waits_.size();
  w.node = row.node;
  w.scope = row.scope;
  w.operation = operation_name(row.operation);
  w.start_ps = row.start_ps;
  w.duration_ps = row.duration_ps;
  w.parts = row.parts;
  w.cause_node = row.cause_node;
  w.cause_scope = row.cause_scope;
  w.object = row.object;
  w.remote_node = row.remote_node;
  mention_scope(w.scope);
  if (w.cause_scope >= 0) mention_scope(static_cast<std::uint32_t>(w.cause_scope));
}

void Profiler::mention_scope(std::uint32_t scope) {
  if (scope >= wait_scopes_.size())
    wait_scopes_.resize(std::max<std::size_t>(scope + 1, 2 * wait_scopes_.size()));
  wait_scopes_[scope] = true;
}

RunData Profiler::finish(RunInfo info) {
  drain();
  RunData d;
  d.run = std::move(info);
  d.run.nodes = static_cast<int>(nodes_.size());
  std::int64_t end = end_ps_;
  if (!stopped_)
    for (const auto& t : nodes_) end = std::max(end, t.finish_ps);
  if (d.run.virtual_time_ps == 0) d.run.virtual_time_ps = end;
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    d.nodes.push_back({static_cast<int>(n), nodes_[n].finish_ps});

  close_cp_scopes(end);
  std::set<std::uint32_t> used{0};  // the scopes the profile and the waits mention
  move_profile(d, used);
  move_waits(d, used);
  d.timeline.reserve(timeline_.size());
  for (const auto& s : timeline_)
    d.timeline.push_back(
        Segment{s.node, s.cp, s.category, operation_name(s.operation), s.scope, s.from, s.to});
  d.timeline_dropped = timeline_dropped_;

  RunScopes scopes = collect_run_scopes(std::move(used), d.run.workload.empty() ? "program" : d.run.workload);
  d.scopes = std::move(scopes.scopes);
  d.sources = std::move(scopes.sources);
  return d;
}

// The accounted cells as profile rows, sorted.
void Profiler::move_profile(RunData& d, std::set<std::uint32_t>& used) const {
  for (const auto& [key, cell] : cells_) {
    ProfileCell c;
    c.node = static_cast<int>(key >> 48);
    c.scope = static_cast<std::uint32_t>((key >> 24) & 0xFFFFFF);
    c.category = static_cast<Category>((key >> 8) & 0xFF);
    c.operation = operation_name(static_cast<std::uint8_t>(key & 0xFF));
    c.time_ps = cell.time_ps;
    c.count = cell.count;
    used.insert(c.scope);
    d.profile.push_back(std::move(c));
  }
  std::sort(d.profile.begin(), d.profile.end(), [](const ProfileCell& a, const ProfileCell& b) {
    return std::tie(a.node, a.scope, a.category, a.operation) <
           std::tie(b.node, b.scope, b.category, b.operation);
  });
}

// The wait instances and their summaries, sorted.
void Profiler::move_waits(RunData& d, std::set<std::uint32_t>& used) {
  d.waits = std::move(waits_);
  for (std::size_t scope = 0; scope < wait_scopes_.size(); ++scope)
    if (wait_scopes_[scope]) used.insert(static_cast<std::uint32_t>(scope));
  d.waits_dropped = waits_dropped_;
  for (const auto& [key, s] : summary_) d.wait_summary.push_back(s);
  std::sort(d.wait_summary.begin(), d.wait_summary.end(), [](const WaitSummary& a, const WaitSummary& b) {
    return std::tie(a.node, a.scope, a.operation, a.kind) < std::tie(b.node, b.scope, b.operation, b.kind);
  });
}

}  // namespace ncp2::carnival
